package isocheck.check;

import java.util.ArrayList;
import java.util.List;

/** What to check and how hard to look. */
public final class CheckOptions {
  /** Levels to decide. */
  public List<Level> levels = new ArrayList<>(List.of(Level.STRICT_SERIALIZABLE));
  /** Instances kept per anomaly type (all are counted). */
  public int maxAnomaliesPerType = 16;
  /** States the per-type cycle searches may visit in one strongly connected component. */
  public long searchBudget = 4_000_000;
  /**
   * Time for the typed counterexample searches (the shortest cycle of each anomaly type per
   * cyclic component), in ms: past it, each component left gets the first cycle found, and the
   * result says the counterexamples are the smallest found within the bound
   * ({@code :counterexample-search :bounded}). Negative (the default): automatic,
   * {@link #AUTO_COUNTEREXAMPLE_SHARE} of the check's time before the counterexamples, at least
   * {@link #MIN_COUNTEREXAMPLE_MS}. The verdicts do not depend on it: cycles are found by the
   * components, and the levels the search decides by the solver.
   */
  public long counterexampleMs = -1;

  /**
   * Automatic counterexample bound: this fraction of the time the check took before them
   * (analysis, graph, components), so that they take at most about a fifth of the check. A
   * list-append history of 10^5 transactions whose stale reads made thousands of cyclic
   * components spent 80 s of 86 in them (issue 26).
   */
  public static final double AUTO_COUNTEREXAMPLE_SHARE = 0.25;

  /** The automatic bound's floor, ms: below it, a small history's counterexamples are all searched. */
  public static final long MIN_COUNTEREXAMPLE_MS = 100;

  /**
   * Types and counts only (the command line's {@code --max-anomalies 0}): no typed counterexample
   * search; each cyclic component is counted once, under the type of the first cycle found in it
   * ({@code :counterexample-search :skipped}). Also when {@link #maxAnomaliesPerType} is 0.
   */
  public boolean countsOnly;

  /** Whether no typed counterexample search is wanted. */
  public boolean skipCounterexamples() { return countsOnly || maxAnomaliesPerType == 0; }

  /** Components searched for typed cycles per family; beyond that, one cycle each is still reported. */
  public int maxComponents = 2_000;
  /**
   * Ignored: the order of never-read appends (list-append) is decided by the polygraph search,
   * whose only limit is {@link #timeLimitMs}. Kept so that callers setting it still compile.
   */
  @Deprecated
  public long unreadBudget = 200_000_000;

  /**
   * Time allowed, per history, for the polygraph search of the serializable and snapshot-isolation
   * levels (rw-register: the version order; list-append: the order of never-read appends); past it
   * a level still open is :unknown with the reason.
   */
  public long timeLimitMs = 60_000;
  /** Pruning and the time-ordered choice before the solver (tests turn them off to compare: the solver alone must agree). */
  public boolean searchShortcuts = true;
  /**
   * rw-register: first try the history's own schedule as a witness, before any polygraph
   * (isocheck.check.si.SerialWitness); off, the polygraph search decides (tests compare them).
   */
  public boolean searchWitness = true;
  /**
   * When a strong level that keeps session order holds (strict or strong-session serializable,
   * strong or strong-session SI), the weak levels asked for hold too and are not checked
   * ({@code [:stats :weak :implied-by]}); off, the weak checker runs anyway (tests compare).
   */
  public boolean weakImplied = true;

  /**
   * rw-register histories: decide by the mini-transaction checker (isocheck.check.mt, MTC
   * Algorithm 1) when the history fixes every key's version order. Off: always the general
   * search (to compare them).
   */
  public boolean miniTransactions = true;

  /**
   * Keep, for each serializable or SI level that holds, the order that shows it (the result's
   * {@code :certificates}, doc/reports.md); off ({@code --no-certificates}), none is built: they cost most on
   * list-append, 60 ms of a 0.5 s check at 10^6 transactions (lein bench certificates).
   */
  public boolean certificates = true;

  /** Weak levels (TCC, RA, RC, CI): clocks ("vector" or "tree") and whether to stop at the first anomaly. */
  public isocheck.check.weak.WeakCheck.Options weak = new isocheck.check.weak.WeakCheck.Options();

  /** Told each stage of the check as it begins ({@link isocheck.util.Progress#NONE}: no one listens). */
  public isocheck.util.Progress progress = isocheck.util.Progress.NONE;

  public CheckOptions levels(List<Level> ls) {
    levels = new ArrayList<>(ls);
    return this;
  }
}
