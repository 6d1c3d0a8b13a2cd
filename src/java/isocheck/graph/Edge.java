package isocheck.graph;

/**
 * Dependency-graph edge types, as bits of a mask (two transactions may be related in several
 * ways at once). Adya's dependencies WW (write-write), WR (write-read), RW (read-write, the
 * anti-dependency); SO (session order: Jepsen process order); RT (realtime: the first completed
 * before the second was invoked). INTRA is the begin→commit edge of the split (BC) graph used
 * for snapshot isolation (Viper, Def. 2). CM is a commit-order edge a weak level's axiom forces
 * (Plume §3.1).
 */
public final class Edge {
  private Edge() {}
  public static final int WW = 1, WR = 2, RW = 4, SO = 8, RT = 16, INTRA = 32, CM = 64;
  /** Dependencies in the SI sense (everything but the anti-dependency). */
  public static final int DEP = WW | WR | SO | RT;
  public static final int DATA = WW | WR | RW;

  /** The label a cycle step takes when several types join two transactions: the strongest one. */
  public static int label(int mask) {
    if ((mask & WW) != 0) return WW;
    if ((mask & WR) != 0) return WR;
    if ((mask & SO) != 0) return SO;
    if ((mask & RT) != 0) return RT;
    if ((mask & RW) != 0) return RW;
    if ((mask & INTRA) != 0) return INTRA;
    if ((mask & CM) != 0) return CM;
    return 0;
  }

  public static String name(int type) {
    switch (type) {
      case WW: return "ww";
      case WR: return "wr";
      case RW: return "rw";
      case SO: return "process";
      case RT: return "realtime";
      case INTRA: return "intra";
      case CM: return "cm";
      default: return "?";
    }
  }
}
