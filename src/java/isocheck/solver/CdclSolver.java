package isocheck.solver;

import isocheck.util.IntList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A conflict-driven clause-learning SAT solver after MiniSat (Eén &amp; Sörensson, "An Extensible
 * SAT-solver", SAT 2003), with an optional {@link Theory} plugged into propagation (CDCL(T)).
 *
 * <ul>
 * <li>Unit propagation with two watched literals per clause and a blocking literal per watch
 *     (MiniSat §4.2; blockers as in MiniSat 2.2).
 * <li>Conflict analysis to the first unique implication point, with recursive clause
 *     minimisation (MiniSat §4.3; Sörensson &amp; Biere, "Minimizing Learned Clauses", SAT 2009).
 * <li>VSIDS variable activities in a binary heap (Chaff; MiniSat §4.4), phase saving (Pipatsrisawat
 *     &amp; Darwiche 2007), Luby restarts (unit 100).
 * <li>Learnt-clause reduction by literal block distance, then activity (Audemard &amp; Simon,
 *     Glucose, IJCAI 2009): every {@code 2000 + 300·k} conflicts half of the learnt clauses with
 *     LBD &gt; 2 go, never a clause that is the reason of an assigned literal.
 * <li>Solving under assumptions, and on UNSAT the failed assumptions (MiniSat §3,
 *     analyzeFinal).
 * <li>A conflict and time budget: {@link Status#UNKNOWN} instead of running on.
 * </ul>
 *
 * <p>Clauses live in one int arena ({@code size, flags|lbd<<2, activity bits, lits…}); internal
 * literals are {@code 2·var + sign} with variables from 1. The public interface ({@link Solver})
 * speaks DIMACS literals.
 *
 * <p>The theory is consulted when unit propagation has nothing left to do: it takes in the new
 * trail literals, may imply literals (their reasons are computed only if conflict analysis asks
 * for them) and may raise a conflict, whose clause is then analysed like any other. On a
 * decision the theory may pick the polarity ({@link Theory#decide}).
 */
public class CdclSolver implements Solver {
  static final int NO_REASON = -1;
  static final int THEORY_REASON = -2;
  private static final int NONE = -1;
  private static final int THEORY_CONFLICT = -2;
  private static final int HDR = 3;
  private static final int LEARNT = 1, DELETED = 2;

  // Parameters (MiniSat 2.2 / Glucose defaults).
  private static final double VAR_DECAY = 0.95, CLA_DECAY = 0.999;
  private static final int RESTART_FIRST = 100;
  private static final int FIRST_REDUCE = 2000, INC_REDUCE = 300;

  final Theory theory;

  // Variables 1..nVars; literal arrays are indexed 0..2·nVars+1.
  int nVars;
  private int cap;
  byte[] val = new byte[0]; // per literal: 1 true, -1 false, 0 unassigned
  int[] level = new int[0];
  int[] reason = new int[0];
  int[] trailPos = new int[0];
  private byte[] phase = new byte[0]; // saved sign: 1 = negative
  private byte[] learntUnit = new byte[0]; // level-0 literal that came from a learnt unit
  private double[] activity = new double[0];
  private byte[] seen = new byte[0];

  int[] trail = new int[0];
  int trailN;
  private int qhead;
  private final IntList trailLim = new IntList();

  private int[][] watches = new int[0][];
  private int[] watchN = new int[0];

  private int[] arena = new int[1024];
  private int arenaN;
  private final IntList clauses = new IntList();
  private final IntList learnts = new IntList();

  private int[] heap = new int[0];
  private int heapN;
  private int[] heapIdx = new int[0];
  // Variables never bumped (activity 0) wait on a stack instead of the heap: most variables of
  // a large polygraph are never in a conflict, and popping the heap was the hot spot. The stack
  // gives them back in the order they were on the trail, so a backjump re-decides them in the
  // same order. A variable leaves it for the heap when first bumped.
  private int[] zStack = new int[0];
  private int zN;
  private byte[] inZ = new byte[0];
  // Lazy decisions (when the theory offers them, Theory#settled; off by default in
  // AcyclicitySolver): a variable the theory finds settled when it comes up for a decision (for
  // acyclicity, one of its literals puts only edges that point forward in the current
  // topological order) is set aside here instead of decided. Only the contested variables are
  // decided while the search looks for conflicts; when none is left, those set aside are looked
  // at again (the order has moved): the contested ones go back to the heap, and once every one
  // is settled in one order, they are decided as it says, which cannot close a cycle
  // (completing). A conflict among a few contested variables then no longer undoes and redoes
  // the decisions of all the settled ones (a Plume-shaped history of 2·10^5 transactions, 4.9
  // million constraints: 126 million decisions for 71 conflicts in 40 s), but the contested ones
  // are chosen without the settled ones' edges to steer them, and on the checker's polygraphs
  // that costs more than it saves (AcyclicitySolver#setLazyDecisions).
  private int[] deferred = new int[0];
  private int deferredN;
  private byte[] inDeferred = new byte[0];
  private boolean completing;
  private double varInc = 1, claInc = 1;

  private boolean ok = true;
  private int[] assumptions = new int[0];
  private int[] core = new int[0];
  private byte[] model;

  // Root-level refutation: the clause (internal literals, all false at level 0) whose conflict
  // made the solver unsatisfiable, and where it came from: a clause given, a clause learnt (a
  // theory conflict at a higher level, learnt and then false at the root, among others), or the
  // theory at the root.
  private int[] rootConflict;
  private RawStep.Kind rootConflictKind;

  private final IntList learnt = new IntList();
  private final IntList toClear = new IntList();
  private final IntList minStack = new IntList();
  private final IntList thConflict = new IntList();
  private int[] levelStamp = new int[16];
  private int stampEpoch = 0;
  private int[] rArr; // reason being read: rArr[rOff .. rOff+rLen)
  private int rOff, rLen;

  private long conflictBudget = -1, timeBudgetNanos = -1;
  private volatile boolean interrupted;
  private long deadline;

  long solves, decisions, propagations, conflicts, learntsMade, deleted, restarts, reductions,
      theoryConflicts, theoryPropagations, solveNanos;

  public CdclSolver() { this(null); }

  CdclSolver(Theory theory) {
    this.theory = theory;
    ensureVars(0);
  }

  // ------------------------------------------------------------------ literals

  static int internal(int dimacs) { return dimacs > 0 ? dimacs << 1 : ((-dimacs) << 1) | 1; }
  static int external(int lit) { return (lit & 1) == 0 ? lit >> 1 : -(lit >> 1); }

  private int checkedInternal(int dimacs) {
    int v = Math.abs(dimacs);
    if (dimacs == 0 || v > nVars) throw new IllegalArgumentException("no variable " + v);
    return internal(dimacs);
  }

  // ------------------------------------------------------------------ interface

  @Override
  public int newVar() {
    int v = ++nVars;
    ensureVars(v);
    heapInsert(v);
    if (theory != null) theory.newVar(v);
    return v;
  }

  private void ensureVars(int v) {
    if (v < cap) return;
    int c = Math.max(16, Math.max(v + 1, cap * 2));
    val = Arrays.copyOf(val, 2 * c);
    watchN = Arrays.copyOf(watchN, 2 * c);
    watches = Arrays.copyOf(watches, 2 * c);
    level = Arrays.copyOf(level, c);
    reason = Arrays.copyOf(reason, c);
    trailPos = Arrays.copyOf(trailPos, c);
    phase = Arrays.copyOf(phase, c);
    learntUnit = Arrays.copyOf(learntUnit, c);
    activity = Arrays.copyOf(activity, c);
    seen = Arrays.copyOf(seen, c);
    trail = Arrays.copyOf(trail, c);
    heapIdx = Arrays.copyOf(heapIdx, c);
    heap = Arrays.copyOf(heap, c);
    zStack = Arrays.copyOf(zStack, c);
    inZ = Arrays.copyOf(inZ, c);
    inDeferred = Arrays.copyOf(inDeferred, c);
    for (int i = cap; i < c; i++) {
      phase[i] = 1;
      heapIdx[i] = -1;
      reason[i] = NO_REASON;
    }
    cap = c;
  }

  @Override
  public int nVars() { return nVars; }

  /** Whether no clause added so far is falsified at the root (false: UNSAT for good). */
  public boolean okay() { return ok; }

  @Override
  public boolean addClause(int... lits) {
    int[] ls = new int[lits.length];
    for (int i = 0; i < lits.length; i++) ls[i] = checkedInternal(lits[i]);
    return addInternalClause(ls);
  }

  /**
   * Adds a clause at the root. Literals false at the root stay in the stored clause (only the
   * watches skip them), so that a root-level derivation can name the clause as it was given.
   */
  boolean addInternalClause(int[] ls) {
    if (!ok) return false;
    if (decisionLevel() > 0) cancelUntil(0);
    int[] c = ls.clone();
    Arrays.sort(c);
    int k = 0, prev = -1;
    for (int l : c) {
      if (val[l] == 1) return true; // satisfied at the root
      if (l == (prev ^ 1)) return true; // tautology
      if (l == prev) continue;
      c[k++] = prev = l;
    }
    c = Arrays.copyOf(c, k);
    // Literals that are not false first: they are the ones to watch.
    int free = 0;
    for (int i = 0; i < k; i++) {
      if (val[c[i]] == 0) {
        int t = c[free];
        c[free++] = c[i];
        c[i] = t;
      }
    }
    if (free == 0) {
      ok = false;
      rootConflict = c;
      rootConflictKind = RawStep.Kind.INPUT;
      return false;
    }
    if (free == 1) {
      assign(c[0], NO_REASON);
      if (k > 1) unitClause(c[0] >> 1, c);
      return true;
    }
    int cr = alloc(c, k, false, 0);
    clauses.add(cr);
    attach(cr);
    return true;
  }

  private int[][] unitClauses = new int[0][];

  /** Remembers the given clause behind a root unit (its other literals are false at the root). */
  private void unitClause(int v, int[] c) {
    if (v >= unitClauses.length) unitClauses = Arrays.copyOf(unitClauses, Math.max(v + 1, 2 * unitClauses.length));
    unitClauses[v] = c;
  }

  /** The theory found a cycle among root edges outside search: UNSAT for good. */
  void rootTheoryConflict(int[] lits) {
    if (!ok) return;
    ok = false;
    rootConflict = lits;
    rootConflictKind = RawStep.Kind.THEORY;
  }

  @Override
  public void setConflictBudget(long conflicts) { conflictBudget = conflicts; }

  @Override
  public void setTimeBudget(long millis) { timeBudgetNanos = millis < 0 ? -1 : millis * 1_000_000L; }

  @Override
  public void interrupt() { interrupted = true; }

  @Override
  public boolean modelValue(int lit) {
    if (model == null) throw new IllegalStateException("no model: the last solve was not SAT");
    int l = checkedInternal(lit);
    return model[l >> 1] == (byte) ((l & 1) == 0 ? 1 : -1);
  }

  /** Whether the last {@link #solve} answered SAT (a model is available). */
  public boolean hasModel() { return model != null; }

  /** After SAT: the model as one literal per variable, variables 1..nVars in order. */
  public int[] model() {
    if (model == null) throw new IllegalStateException("no model: the last solve was not SAT");
    int[] m = new int[nVars];
    for (int v = 1; v <= nVars; v++) m[v - 1] = model[v] == 1 ? v : -v;
    return m;
  }

  @Override
  public int[] core() { return core.clone(); }

  @Override
  public SolverStats stats() {
    return new SolverStats(solves, decisions, propagations, conflicts, learntsMade, deleted, restarts,
        reductions, theoryConflicts, theoryPropagations, edgeInsertions(), reorders(), solveNanos);
  }

  long edgeInsertions() { return 0; }
  long reorders() { return 0; }

  /** The number of learnt clauses currently kept. */
  public int learntCount() { return learnts.size(); }

  // ------------------------------------------------------------------ solving

  @Override
  public Status solve(int... assumps) {
    long t0 = System.nanoTime();
    solves++;
    model = null;
    core = new int[0];
    interrupted = false;
    assumptions = new int[assumps.length];
    for (int i = 0; i < assumps.length; i++) assumptions[i] = checkedInternal(assumps[i]);
    deadline = timeBudgetNanos < 0 ? Long.MAX_VALUE : t0 + timeBudgetNanos;
    long conflictLimit = conflictBudget < 0 ? Long.MAX_VALUE : conflicts + conflictBudget;
    Status st;
    try {
      st = ok ? Status.UNKNOWN : Status.UNSAT;
      int restart = 0;
      long nextReduce = conflicts + FIRST_REDUCE;
      int reduceRound = 0;
      while (st == Status.UNKNOWN) {
        long budget = (long) (luby(2, restart) * RESTART_FIRST);
        int r = search(budget, conflictLimit, nextReduce);
        if (r == R_REDUCE) {
          reduceDb();
          reduceRound++;
          nextReduce = conflicts + FIRST_REDUCE + (long) INC_REDUCE * reduceRound;
          continue;
        }
        if (r == R_SAT) st = Status.SAT;
        else if (r == R_UNSAT) st = Status.UNSAT;
        else if (r == R_BUDGET) break;
        else {
          restart++;
          restarts++;
        }
      }
      if (st == Status.SAT) {
        byte[] vm = new byte[nVars + 1];
        for (int v = 1; v <= nVars; v++) vm[v] = val[2 * v];
        model = vm;
        if (theory != null) theory.onModel();
      }
      cancelUntil(0);
    } finally {
      solveNanos += System.nanoTime() - t0;
    }
    return st;
  }

  private static final int R_SAT = 1, R_UNSAT = 2, R_RESTART = 3, R_BUDGET = 4, R_REDUCE = 5;

  private int search(long nofConflicts, long conflictLimit, long nextReduce) {
    long localConflicts = 0;
    int sinceCheck = 0;
    while (true) {
      int confl = propagate();
      if (confl != NONE) {
        conflicts++;
        localConflicts++;
        if (confl == THEORY_CONFLICT) {
          theoryConflicts++;
          int max = 0;
          for (int i = 0; i < thConflict.size(); i++) max = Math.max(max, level[thConflict.get(i) >> 1]);
          if (max == 0) {
            ok = false;
            rootConflict = thConflict.toArray();
            rootConflictKind = RawStep.Kind.THEORY;
            return R_UNSAT;
          }
          if (max < decisionLevel()) cancelUntil(max);
        } else if (decisionLevel() == 0) {
          ok = false;
          rootConflict = clauseLits(confl);
          rootConflictKind = (arena[confl + 1] & LEARNT) != 0 ? RawStep.Kind.LEARNT : RawStep.Kind.INPUT;
          return R_UNSAT;
        }
        int bt = analyze(confl);
        cancelUntil(bt);
        if (learnt.size() == 1) {
          int l = learnt.get(0);
          assign(l, NO_REASON);
          learntUnit[l >> 1] = 1;
        } else {
          int cr = alloc(learnt.raw(), learnt.size(), true, lbd());
          learnts.add(cr);
          attach(cr);
          bumpClause(cr);
          assign(learnt.get(0), cr);
        }
        learntsMade++;
        varInc /= VAR_DECAY;
        claInc /= CLA_DECAY;
        if (conflicts >= conflictLimit || interrupted || ((conflicts & 63) == 0 && System.nanoTime() > deadline)) {
          cancelUntil(0);
          return R_BUDGET;
        }
      } else {
        if (localConflicts >= nofConflicts) {
          cancelUntil(0);
          return R_RESTART;
        }
        if (conflicts >= nextReduce && learnts.size() > 0) return R_REDUCE;
        if (++sinceCheck >= 256) {
          sinceCheck = 0;
          if (interrupted || System.nanoTime() > deadline) {
            cancelUntil(0);
            return R_BUDGET;
          }
        }
        int next = NONE;
        while (decisionLevel() < assumptions.length) {
          int p = assumptions[decisionLevel()];
          if (val[p] == 1) {
            trailLim.add(trailN); // a dummy level keeps levels aligned with assumptions
          } else if (val[p] == -1) {
            analyzeFinal(p);
            return R_UNSAT;
          } else {
            next = p;
            break;
          }
        }
        if (next == NONE) {
          next = pickBranchLit();
          if (next == NONE) return R_SAT;
          decisions++;
        }
        trailLim.add(trailN);
        assign(next, NO_REASON);
      }
    }
  }

  int decisionLevel() { return trailLim.size(); }

  void assign(int l, int from) {
    int v = l >> 1;
    val[l] = 1;
    val[l ^ 1] = -1;
    level[v] = decisionLevel();
    reason[v] = from;
    trailPos[v] = trailN;
    trail[trailN++] = l;
  }

  /** Called by the theory during {@link Theory#propagate}: l is true, for a reason it can explain. */
  void imply(int l) {
    assign(l, THEORY_REASON);
    theoryPropagations++;
  }

  int value(int l) { return val[l]; }

  private void cancelUntil(int lvl) {
    if (decisionLevel() <= lvl) return;
    int lim = trailLim.get(lvl);
    for (int c = trailN - 1; c >= lim; c--) {
      int l = trail[c];
      int v = l >> 1;
      val[l] = 0;
      val[l ^ 1] = 0;
      reason[v] = NO_REASON;
      phase[v] = (byte) (l & 1);
      if (heapIdx[v] < 0 && inZ[v] == 0) heapInsert(v);
    }
    trailN = lim;
    qhead = Math.min(qhead, lim);
    trailLim.truncate(lvl);
    completing = false;
    if (theory != null) theory.backtrack(lim);
  }

  private int pickBranchLit() {
    while (true) {
      int v = NONE;
      while (heapN > 0) {
        int x = heapRemoveMax();
        if (val[2 * x] == 0 && !defer(x)) {
          v = x;
          break;
        }
      }
      while (v == NONE && zN > 0) {
        int x = zStack[--zN];
        if (inZ[x] == 0) continue; // moved to the heap
        inZ[x] = 0;
        if (val[2 * x] == 0 && !defer(x)) v = x;
      }
      if (v != NONE) {
        if (theory != null) {
          int l = theory.decide(v);
          if (l != 0) return l;
        }
        return 2 * v + phase[v];
      }
      if (deferredN == 0) return NONE;
      int l = nextDeferred();
      if (l != NONE) return l;
    }
  }

  /** Sets x aside when the theory finds it settled (see {@link #deferred}); true if it did. */
  private boolean defer(int x) {
    if (theory == null || theory.settled(x) == 0) return false;
    if (inDeferred[x] == 0) {
      inDeferred[x] = 1;
      if (deferredN == deferred.length) deferred = Arrays.copyOf(deferred, Math.max(16, 2 * deferredN));
      deferred[deferredN++] = x;
    }
    return true;
  }

  /**
   * With nothing contested left: the next variable set aside, decided as the theory's order
   * settles it; or NONE when some are contested now (back in the heap) or none is left.
   */
  private int nextDeferred() {
    if (!completing) {
      // From the last set aside to the first: the contested ones go back to the heap, or to the
      // stack of variables never bumped, which then gives them in the order they were set aside.
      int j = deferredN;
      boolean back = false;
      for (int i = deferredN - 1; i >= 0; i--) {
        int x = deferred[i];
        if (val[2 * x] != 0 || heapIdx[x] >= 0 || inZ[x] != 0) { // decided or implied meanwhile, or back in the heap
          inDeferred[x] = 0;
        } else if (theory.settled(x) == 0) {
          inDeferred[x] = 0;
          heapInsert(x);
          back = true;
        } else {
          deferred[--j] = x;
        }
      }
      System.arraycopy(deferred, j, deferred, 0, deferredN - j);
      deferredN -= j;
      if (back) return NONE;
      completing = true;
    }
    while (deferredN > 0) {
      int x = deferred[--deferredN];
      inDeferred[x] = 0;
      if (val[2 * x] != 0 || heapIdx[x] >= 0 || inZ[x] != 0) continue;
      int l = theory.settled(x);
      if (l != 0) return l;
      // (Not expected: forward edges keep the order. Decided like any other then.)
      completing = false;
      heapInsert(x);
      return NONE;
    }
    completing = false;
    return NONE;
  }

  // ------------------------------------------------------------------ propagation

  private int propagate() {
    while (true) {
      int c = bcp();
      if (c != NONE) return c;
      if (theory == null) return NONE;
      thConflict.clear();
      if (!theory.propagate(thConflict)) {
        qhead = trailN;
        return THEORY_CONFLICT;
      }
      if (qhead == trailN) return NONE;
    }
  }

  private int bcp() {
    int confl = NONE;
    int[] ar = arena;
    while (qhead < trailN) {
      int p = trail[qhead++];
      int falseLit = p ^ 1;
      int[] ws = watches[falseLit];
      int n = watchN[falseLit];
      int i = 0, j = 0;
      propagations++;
      while (i < n) {
        int cr = ws[i], blocker = ws[i + 1];
        i += 2;
        if (val[blocker] == 1) {
          ws[j++] = cr;
          ws[j++] = blocker;
          continue;
        }
        int c0 = cr + HDR;
        if (ar[c0] == falseLit) {
          ar[c0] = ar[c0 + 1];
          ar[c0 + 1] = falseLit;
        }
        int first = ar[c0];
        if (first != blocker && val[first] == 1) {
          ws[j++] = cr;
          ws[j++] = first;
          continue;
        }
        int size = ar[cr];
        boolean moved = false;
        for (int k = 2; k < size; k++) {
          int l = ar[c0 + k];
          if (val[l] != -1) {
            ar[c0 + 1] = l;
            ar[c0 + k] = falseLit;
            addWatch(l, cr, first);
            moved = true;
            break;
          }
        }
        if (moved) continue;
        ws[j++] = cr;
        ws[j++] = first;
        if (val[first] == -1) {
          confl = cr;
          qhead = trailN;
          while (i < n) ws[j++] = ws[i++];
        } else {
          assign(first, cr);
        }
      }
      watchN[falseLit] = j;
    }
    return confl;
  }

  private void addWatch(int l, int cr, int blocker) {
    int[] ws = watches[l];
    int n = watchN[l];
    if (ws == null) ws = watches[l] = new int[4];
    else if (n + 2 > ws.length) ws = watches[l] = Arrays.copyOf(ws, ws.length * 2);
    ws[n] = cr;
    ws[n + 1] = blocker;
    watchN[l] = n + 2;
  }

  private void attach(int cr) {
    addWatch(arena[cr + HDR], cr, arena[cr + HDR + 1]);
    addWatch(arena[cr + HDR + 1], cr, arena[cr + HDR]);
  }

  // ------------------------------------------------------------------ clauses

  private int alloc(int[] lits, int n, boolean isLearnt, int lbd) {
    int need = arenaN + HDR + n;
    if (need > arena.length) arena = Arrays.copyOf(arena, Math.max(need, arena.length * 2));
    int cr = arenaN;
    arena[cr] = n;
    arena[cr + 1] = (isLearnt ? LEARNT : 0) | (lbd << 2);
    arena[cr + 2] = Float.floatToRawIntBits(0f);
    System.arraycopy(lits, 0, arena, cr + HDR, n);
    arenaN = need;
    return cr;
  }

  private int[] clauseLits(int cr) { return Arrays.copyOfRange(arena, cr + HDR, cr + HDR + arena[cr]); }

  private void bumpClause(int cr) {
    float a = Float.intBitsToFloat(arena[cr + 2]) + (float) claInc;
    arena[cr + 2] = Float.floatToRawIntBits(a);
    if (a > 1e20f) {
      for (int i = 0; i < learnts.size(); i++) {
        int c = learnts.get(i);
        arena[c + 2] = Float.floatToRawIntBits(Float.intBitsToFloat(arena[c + 2]) * 1e-20f);
      }
      claInc *= 1e-20;
    }
  }

  /** Whether clause cr is the reason of the literal it watches first (it must stay). */
  private boolean locked(int cr) {
    int l = arena[cr + HDR];
    return val[l] == 1 && reason[l >> 1] == cr;
  }

  /**
   * Deletes half of the learnt clauses, the worst first by LBD then activity, sparing binary
   * clauses, LBD ≤ 2 ("glue") clauses and reasons; then compacts the arena and rebuilds the
   * watch lists.
   */
  private void reduceDb() {
    reductions++;
    int n = learnts.size();
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      int cr = learnts.get(i);
      long lbd = Math.min(arena[cr + 1] >>> 2, 0x7ff);
      // Ascending order puts high LBD first, then low activity; the index rides in the low bits.
      keys[i] = ((0x7ffL - lbd) << 52) | (actKey(Float.intBitsToFloat(arena[cr + 2])) << 24) | i;
    }
    Arrays.sort(keys);
    int limit = n / 2;
    int removed = 0;
    for (int k = 0; k < n && removed < limit; k++) {
      int cr = learnts.get((int) (keys[k] & 0xffffff));
      int lbd = arena[cr + 1] >>> 2;
      if (arena[cr] > 2 && lbd > 2 && !locked(cr)) {
        arena[cr + 1] |= DELETED;
        removed++;
      }
    }
    deleted += removed;
    compact();
  }

  /** A 28-bit key increasing with a non-negative float. */
  private static long actKey(float a) {
    int bits = Float.floatToRawIntBits(Math.max(0f, a));
    return (bits >>> 3) & 0xfffffffL;
  }

  private void compact() {
    int[] na = new int[Math.max(1024, arenaN)];
    int nn = 0;
    // A kept clause is copied whole, then its old activity slot receives its new address.
    IntList keepC = new IntList(clauses.size()), keepL = new IntList(learnts.size());
    for (int pass = 0; pass < 2; pass++) {
      IntList src = pass == 0 ? clauses : learnts;
      IntList dst = pass == 0 ? keepC : keepL;
      for (int i = 0; i < src.size(); i++) {
        int cr = src.get(i);
        if ((arena[cr + 1] & DELETED) != 0) {
          arena[cr + 2] = -1;
          continue;
        }
        int len = HDR + arena[cr];
        System.arraycopy(arena, cr, na, nn, len);
        arena[cr + 2] = nn; // forward
        dst.add(nn);
        nn += len;
      }
    }
    for (int i = 0; i < trailN; i++) {
      int v = trail[i] >> 1;
      if (reason[v] >= 0) reason[v] = arena[reason[v] + 2];
    }
    arena = na;
    arenaN = nn;
    clauses.clear();
    clauses.addAll(keepC);
    learnts.clear();
    learnts.addAll(keepL);
    for (int l = 0; l < 2 * (nVars + 1); l++) watchN[l] = 0;
    for (int i = 0; i < clauses.size(); i++) attach(clauses.get(i));
    for (int i = 0; i < learnts.size(); i++) attach(learnts.get(i));
  }

  // ------------------------------------------------------------------ analysis

  /** Points rArr/rOff/rLen at the reason of assigned variable v (implied literal first). */
  private void loadReason(int v) {
    int r = reason[v];
    if (r >= 0) {
      rArr = arena;
      rOff = r + HDR;
      rLen = arena[r];
    } else {
      int l = val[2 * v] == 1 ? 2 * v : 2 * v + 1;
      int[] e = theory.explain(l);
      rArr = e;
      rOff = 0;
      rLen = e.length;
    }
  }

  /** 1UIP learning into {@link #learnt} (asserting literal first); returns the backjump level. */
  private int analyze(int confl) {
    learnt.clear();
    learnt.add(0);
    int pathC = 0;
    int p = NONE;
    int index = trailN - 1;
    int dl = decisionLevel();
    int[] arr;
    int off, len;
    if (confl == THEORY_CONFLICT) {
      arr = thConflict.raw();
      off = 0;
      len = thConflict.size();
    } else {
      if ((arena[confl + 1] & LEARNT) != 0) bumpClause(confl);
      arr = arena;
      off = confl + HDR;
      len = arena[confl];
    }
    while (true) {
      for (int j = (p == NONE ? 0 : 1); j < len; j++) {
        int q = arr[off + j];
        int v = q >> 1;
        if (seen[v] == 0 && level[v] > 0) {
          bumpVar(v);
          seen[v] = 1;
          if (level[v] >= dl) pathC++;
          else learnt.add(q);
        }
      }
      while (seen[trail[index] >> 1] == 0) index--;
      p = trail[index];
      index--;
      int pv = p >> 1;
      seen[pv] = 0;
      pathC--;
      if (pathC <= 0) break;
      int r = reason[pv];
      if (r >= 0) {
        if ((arena[r + 1] & LEARNT) != 0) bumpClause(r);
        arr = arena;
        off = r + HDR;
        len = arena[r];
      } else {
        loadReason(pv);
        arr = rArr;
        off = rOff;
        len = rLen;
      }
    }
    learnt.set(0, p ^ 1);

    // Recursive minimisation.
    toClear.clear();
    for (int i = 0; i < learnt.size(); i++) toClear.add(learnt.get(i));
    int abs = 0;
    for (int i = 1; i < learnt.size(); i++) abs |= abstractLevel(learnt.get(i) >> 1);
    int j = 1;
    for (int i = 1; i < learnt.size(); i++) {
      int l = learnt.get(i);
      if (reason[l >> 1] == NO_REASON || !redundant(l, abs)) learnt.set(j++, l);
    }
    learnt.truncate(j);
    for (int i = 0; i < toClear.size(); i++) seen[toClear.get(i) >> 1] = 0;

    int bt = 0;
    if (learnt.size() > 1) {
      int maxI = 1;
      for (int i = 2; i < learnt.size(); i++) if (level[learnt.get(i) >> 1] > level[learnt.get(maxI) >> 1]) maxI = i;
      int t = learnt.get(maxI);
      learnt.set(maxI, learnt.get(1));
      learnt.set(1, t);
      bt = level[t >> 1];
    }
    return bt;
  }

  private int abstractLevel(int v) { return 1 << (level[v] & 31); }

  private boolean redundant(int p, int abs) {
    minStack.clear();
    minStack.add(p);
    int top = toClear.size();
    while (!minStack.isEmpty()) {
      int q = minStack.pop();
      loadReason(q >> 1);
      int[] arr = rArr;
      int off = rOff, len = rLen;
      for (int i = 1; i < len; i++) {
        int l = arr[off + i];
        int v = l >> 1;
        if (seen[v] == 0 && level[v] > 0) {
          if (reason[v] != NO_REASON && (abstractLevel(v) & abs) != 0) {
            seen[v] = 1;
            minStack.add(l);
            toClear.add(l);
          } else {
            for (int k = top; k < toClear.size(); k++) seen[toClear.get(k) >> 1] = 0;
            toClear.truncate(top);
            return false;
          }
        }
      }
    }
    return true;
  }

  private int lbd() {
    int e = ++stampEpoch;
    int n = 0;
    for (int i = 0; i < learnt.size(); i++) {
      int lv = level[learnt.get(i) >> 1];
      if (lv >= levelStamp.length) levelStamp = Arrays.copyOf(levelStamp, Math.max(lv + 1, levelStamp.length * 2));
      if (levelStamp[lv] != e) {
        levelStamp[lv] = e;
        n++;
      }
    }
    return n;
  }

  /** The assumptions responsible for p being false (MiniSat's analyzeFinal); fills {@link #core}. */
  private void analyzeFinal(int p) {
    IntList out = new IntList();
    out.add(p);
    if (decisionLevel() > 0) {
      seen[p >> 1] = 1;
      for (int i = trailN - 1; i >= trailLim.get(0); i--) {
        int x = trail[i] >> 1;
        if (seen[x] == 0) continue;
        if (reason[x] == NO_REASON) {
          if (level[x] > 0) out.add(trail[i]);
        } else {
          loadReason(x);
          for (int j = 1; j < rLen; j++) {
            int v = rArr[rOff + j] >> 1;
            if (level[v] > 0) seen[v] = 1;
          }
        }
        seen[x] = 0;
      }
      seen[p >> 1] = 0;
    }
    int[] c = new int[out.size()];
    for (int i = 0; i < c.length; i++) c[i] = external(out.get(i));
    core = c;
  }

  // ------------------------------------------------------------------ refutation

  /**
   * After UNSAT without assumptions: how the root conflict follows from the clauses and the
   * theory, as the level-0 literals it needs, each with its reason, in trail order; the final
   * conflict last ({@code lit == 0}). Null when the solver is not unsatisfiable at the root.
   */
  List<RawStep> rootDerivation() {
    if (ok || rootConflict == null) return null;
    List<RawStep> steps = new ArrayList<>();
    byte[] mark = new byte[nVars + 1];
    for (int l : rootConflict) mark[l >> 1] = 1;
    for (int i = trailN - 1; i >= 0; i--) {
      int l = trail[i];
      int v = l >> 1;
      if (mark[v] == 0 || val[l] != 1) continue;
      int[] why;
      RawStep.Kind kind;
      if (reason[v] == NO_REASON) {
        boolean given = learntUnit[v] == 0 && v < unitClauses.length && unitClauses[v] != null;
        why = given ? unitClauses[v].clone() : new int[] {l};
        kind = learntUnit[v] == 1 ? RawStep.Kind.LEARNT : RawStep.Kind.INPUT;
      } else if (reason[v] == THEORY_REASON) {
        why = theory.explain(l);
        kind = RawStep.Kind.THEORY;
      } else {
        why = clauseLits(reason[v]);
        kind = (arena[reason[v] + 1] & LEARNT) != 0 ? RawStep.Kind.LEARNT : RawStep.Kind.INPUT;
      }
      for (int q : why) mark[q >> 1] = 1;
      steps.add(new RawStep(l, kind, why));
    }
    java.util.Collections.reverse(steps);
    steps.add(new RawStep(0, rootConflictKind, rootConflict.clone()));
    return steps;
  }

  /** One step of {@link #rootDerivation}, in internal literals. */
  static final class RawStep {
    enum Kind { INPUT, LEARNT, THEORY }

    final int lit;
    final Kind kind;
    final int[] clause;

    RawStep(int lit, Kind kind, int[] clause) {
      this.lit = lit;
      this.kind = kind;
      this.clause = clause;
    }
  }

  // ------------------------------------------------------------------ VSIDS

  private void bumpVar(int v) {
    if ((activity[v] += varInc) > 1e100) {
      for (int i = 1; i <= nVars; i++) activity[i] *= 1e-100;
      varInc *= 1e-100;
    }
    if (heapIdx[v] >= 0) heapUp(heapIdx[v]);
    else if (inZ[v] == 1) {
      inZ[v] = 0; // its stack entry goes stale
      heapInsert(v);
    }
  }

  private void heapInsert(int v) {
    if (activity[v] == 0) {
      if (zN == zStack.length) { // only stale entries can fill it: drop them
        int k = 0;
        for (int i = 0; i < zN; i++) if (inZ[zStack[i]] == 1) zStack[k++] = zStack[i];
        zN = k;
      }
      inZ[v] = 1;
      zStack[zN++] = v;
      return;
    }
    heapIdx[v] = heapN;
    heap[heapN++] = v;
    heapUp(heapN - 1);
  }

  private int heapRemoveMax() {
    int top = heap[0];
    int last = heap[--heapN];
    heapIdx[top] = -1;
    if (heapN > 0) {
      heap[0] = last;
      heapIdx[last] = 0;
      heapDown(0);
    }
    return top;
  }

  private void heapUp(int i) {
    int v = heap[i];
    double a = activity[v];
    while (i > 0) {
      int p = (i - 1) >> 1;
      int pv = heap[p];
      if (activity[pv] >= a) break;
      heap[i] = pv;
      heapIdx[pv] = i;
      i = p;
    }
    heap[i] = v;
    heapIdx[v] = i;
  }

  private void heapDown(int i) {
    int v = heap[i];
    double a = activity[v];
    while (true) {
      int c = 2 * i + 1;
      if (c >= heapN) break;
      if (c + 1 < heapN && activity[heap[c + 1]] > activity[heap[c]]) c++;
      if (activity[heap[c]] <= a) break;
      heap[i] = heap[c];
      heapIdx[heap[i]] = i;
      i = c;
    }
    heap[i] = v;
    heapIdx[v] = i;
  }

  /** The Luby sequence scaled by y^k (MiniSat 2.2's luby). */
  static double luby(double y, int x) {
    int size = 1, seq = 0;
    while (size < x + 1) {
      seq++;
      size = 2 * size + 1;
    }
    while (size - 1 != x) {
      size = (size - 1) >> 1;
      seq--;
      x = x % size;
    }
    return Math.pow(y, seq);
  }
}
