package isocheck.graph;

import isocheck.history.History;

/**
 * Where a history's session order and realtime order ({@link Orders}) were appended to an edge
 * list, for the transactions {@code committed} says: [soFrom, soTo) and [rtFrom, rtTo) of
 * {@code es} (an empty range when that order was not added), with {@code relays} realtime relay
 * nodes. Edge lists only grow, so the ranges stay valid. The check's observed graph adds them
 * (isocheck.check.Checker); the version-order search's polygraphs take them from there rather
 * than computing them again (isocheck.check.si.Polygraph#orders: 2.5 million realtime edges at
 * 10^6 Jepsen-shaped transactions, 50-90 ms).
 */
public final class OrderEdges {
  public final EdgeList es;
  public final boolean[] committed;
  public final int soFrom, soTo, rtFrom, rtTo, relays;
  public final boolean session, realtime;

  private OrderEdges(EdgeList es, boolean[] committed, boolean session, int soFrom, int soTo, boolean realtime, int rtFrom,
                     int rtTo, int relays) {
    this.es = es;
    this.committed = committed;
    this.session = session;
    this.soFrom = soFrom;
    this.soTo = soTo;
    this.realtime = realtime;
    this.rtFrom = rtFrom;
    this.rtTo = rtTo;
    this.relays = relays;
  }

  /**
   * Appends session order (when {@code session}) and realtime order (when {@code realtime}) of
   * the committed transactions to es, and says where.
   */
  public static OrderEdges append(History h, boolean[] committed, EdgeList es, boolean session, boolean realtime) {
    int so = es.size();
    if (session) Orders.sessionOrder(h, committed, es);
    int rt = es.size();
    int relays = realtime ? Orders.realtime(h, committed, es) : 0;
    return new OrderEdges(es, committed, session, so, rt, realtime, rt, es.size(), relays);
  }
}
