package isocheck.sim;

import isocheck.history.OpRecord;
import java.util.ArrayList;

/**
 * An injected bug in progress. A scenario starts at an opportunity (a commit, or an idle session
 * about to invoke), holds the sessions it needs (they run only the transactions it queues for
 * them), deviates from the store's semantics in one precise way, and counts a firing only when
 * the transactions that witness the deviation completed {@code :ok}, so the anomaly is in the
 * history. Everything else stays faithful to the store: the deviating reads are read-only
 * transactions whose fixed results are prefixes of the keys' committed versions (never a gap
 * that a later write would extend), chosen so that the anomaly breaks exactly
 * {@link Bug#breaks()} and nothing in {@link Bug#keeps()}.
 *
 * <p>Version orders must be evident for the anomaly to be provable. In list-append histories a
 * read of the key that shows both versions does it (the scenarios arrange one). In rw-register
 * histories nothing shows the order, so the scenarios only use a writer that read the key and
 * saw exactly the previous version ({@link KeyState#F_RMW}: reads-from then orders the two), or
 * a key with no earlier version (the initial state precedes everything).
 *
 * <p>Reads-from of a list read is the writer of its last element (Elle, PolySI, Plume's
 * list translation).
 */
abstract class BugScenario {
  static final int ROLE_MAIN = 1, ROLE_FOLLOW = 2, ROLE_WATCHED = 3;

  private final ArrayList<Session> held = new ArrayList<>(2);
  private boolean acted;
  /** Shaped transactions queued or in flight. */
  int outstanding;

  BugScenario(Engine e) { e.activeScenarios++; }

  void reserve(Engine e, Session s) {
    s.reservedBy = this;
    held.add(s);
    e.refresh(s);
  }

  void enqueue(Engine e, Session s, Shape sh, int role) {
    sh.scen = this;
    sh.role = role;
    s.queue.add(sh);
    outstanding++;
    e.refresh(s);
  }

  void release(Engine e, Session s) {
    if (held.remove(s)) {
      s.reservedBy = null;
      s.queue.clear();
      e.refresh(s);
    }
  }

  /** Records that the store deviated (once per scenario). */
  void markActed(Engine e) {
    if (!acted) {
      acted = true;
      e.bugActions++;
    }
  }

  void finish(Engine e) {
    for (Session s : new ArrayList<>(held)) release(e, s);
    e.activeScenarios--;
  }

  /** Called when a transaction of this scenario completes (seq: its commit seq, 0 if none). */
  abstract void onComplete(Engine e, Session s, Txn t, int reported, int seq);

  /** Snapshot isolation found a first-committer-wins conflict for t; true lets t commit anyway. */
  boolean skipFirstCommitterWins(Engine e, Session s, Txn t) { return false; }

  // ------------------------------------------------------------------ starting

  /** An idle session is about to invoke: scenarios that shape their own writers start here. */
  static void startAtInvoke(Engine e, Session s) {
    if (e.bug == Bug.INTERMEDIATE_READ) IntermediateRead.start(e, s);
    else if (e.bug == Bug.LOST_UPDATE) LostUpdate.start(e, s);
  }

  /** t committed :ok (seq) on s, naturally: scenarios that build on a fresh commit start here. */
  static void startAtCommit(Engine e, Session s, Txn t, int seq) {
    switch (e.bug) {
      case STALE_REALTIME_READ: StaleRealtimeRead.start(e, s, t, seq); break;
      case FRACTURED_READ: FracturedRead.start(e, s, t, seq); break;
      case CAUSALITY_VIOLATION: CausalityViolation.start(e, s, t, seq); break;
      case LONG_FORK: LongFork.start(e, s, t, seq); break;
      default:
    }
  }

  // ------------------------------------------------------------------ helpers

  /**
   * Whether the order between the version t installed on k (at seq) and the one before it will
   * be evident in the history: always for list-append (a later read shows both), for register
   * only when there was no earlier version or t read exactly the previous one.
   */
  static boolean orderEvident(Engine e, KeyState k, int seq) {
    if (e.lists) return true;
    int before = k.prefixLen(seq - 1);
    if (before == 0) return true;
    int mine = k.prefixLen(seq) - 1;
    return mine >= before && k.has(mine, KeyState.F_RMW);
  }

  /** The distinct keys t wrote, in program order. */
  static ArrayList<KeyState> writtenKeys(Txn t) {
    ArrayList<KeyState> ks = new ArrayList<>(t.n);
    for (int i = 0; i < t.n; i++) if (t.isFirstWrite(i)) ks.add(t.key[i]);
    return ks;
  }

  /** A written key of t (committed at seq) whose order to its predecessor is evident, or null. */
  static KeyState evidentKey(Engine e, Txn t, int seq) {
    ArrayList<KeyState> ks = writtenKeys(t);
    int n = ks.size(), start = e.rng.nextInt(Math.max(1, n));
    for (int j = 0; j < n; j++) {
      KeyState k = ks.get((start + j) % n);
      if (orderEvident(e, k, seq)) return k;
    }
    return null;
  }

  static Shape readLatest(KeyState k) { return new Shape(1).read(0, k); }

  // ================================================================== the bugs

  /**
   * G1a (Adya), AbortedRead (Plume TAP-b): a transaction the store committed is reported
   * {@code :fail} to its client, so its writes are visible although it "aborted". A reader
   * (another idle session if there is one, else the writer's own session next) then reads one
   * of the written keys at the state right after that commit. Breaks every level.
   */
  static final class AbortedRead extends BugScenario {
    private final Session reader;

    private AbortedRead(Engine e, Session reader) {
      super(e);
      this.reader = reader;
      reserve(e, reader);
    }

    /** Holds a reader session: another idle one if there is one, else the writer's own. */
    static AbortedRead start(Engine e, Session writer) {
      Session r = e.idleSession(Integer.MAX_VALUE, writer, null);
      return new AbortedRead(e, r != null ? r : writer);
    }

    /** The leaked transaction t was installed at seq; queue the read that sees it. */
    void leaked(Engine e, Txn t, int seq) {
      markActed(e);
      KeyState k = writtenKeys(t).get(0);
      enqueue(e, reader, new Shape(1).readFixed(0, k, k.prefixLen(seq)).view(seq), ROLE_MAIN);
    }

    @Override void onComplete(Engine e, Session s, Txn t, int reported, int seq) {
      if (t.role != ROLE_MAIN) return;
      if (reported == Engine.OK) e.bugFirings++;
      finish(e);
    }
  }

  /**
   * G1b (Adya), IntermediateRead (Plume TAP-f): a shaped writer W appends (writes) the same key
   * twice; after W commits, a reader on another session reads the key as it was after W's first
   * write only. Breaks every level.
   */
  static final class IntermediateRead extends BugScenario {
    private final Session writer, reader;
    private final KeyState key;

    private IntermediateRead(Engine e, Session writer, Session reader) {
      super(e);
      this.writer = writer;
      this.reader = reader;
      this.key = e.pickKey();
      reserve(e, writer);
      reserve(e, reader);
      byte w = e.lists ? OpRecord.APPEND : OpRecord.WRITE;
      enqueue(e, writer, new Shape(2).write(0, key, w).write(1, key, w), ROLE_MAIN);
    }

    static void start(Engine e, Session s) {
      Session r = e.idleSession(Integer.MAX_VALUE, s, null);
      if (r != null) new IntermediateRead(e, s, r);
    }

    @Override void onComplete(Engine e, Session s, Txn t, int reported, int seq) {
      if (t.role == ROLE_MAIN) {
        if (reported != Engine.OK || seq == 0) {
          finish(e);
          return;
        }
        Shape r = new Shape(1).view(seq);
        if (e.lists) r.readFixed(0, key, key.prefixLen(seq - 1) + 1);
        else r.readLiteral(0, key, t.val[0]);
        enqueue(e, reader, r, ROLE_FOLLOW);
        release(e, writer);
      } else {
        if (reported == Engine.OK) e.bugFirings++;
        finish(e);
      }
    }
  }

  /**
   * Lost update (Cerone et al. Fig. 2b, Biswas–Enea Fig. 3g): two shaped transactions on two
   * sessions both read key k and then append (write) it. If they overlap, snapshot isolation's
   * first-committer-wins aborts the second; the bug lets it commit when both read the same
   * version of k and neither read k after writing it (so each read is a prefix of the installed
   * order). A follow-up read of k on the late committer's session shows the version order.
   * Breaks SI and everything stronger; keeps TCC, RA, RC, CI (the late transaction's snapshot
   * was consistent and causally closed, it was merely stale).
   */
  static final class LostUpdate extends BugScenario {
    private KeyState firedKey;
    private Session firedSession;

    private LostUpdate(Engine e, Session a, Session b) {
      super(e);
      KeyState k = e.pickKey();
      byte w = e.lists ? OpRecord.APPEND : OpRecord.WRITE;
      reserve(e, a);
      reserve(e, b);
      enqueue(e, a, new Shape(2).read(0, k).write(1, k, w), ROLE_MAIN);
      enqueue(e, b, new Shape(2).read(0, k).write(1, k, w), ROLE_MAIN);
    }

    static void start(Engine e, Session s) {
      Session b = e.idleSession(Integer.MAX_VALUE, s, null);
      if (b != null) new LostUpdate(e, s, b);
    }

    @Override boolean skipFirstCommitterWins(Engine e, Session s, Txn t) {
      if (firedKey != null) return false;
      KeyState witness = null;
      for (int i = 0; i < t.n; i++) {
        if (!t.isFirstWrite(i)) continue;
        KeyState k = t.key[i];
        if (k.lastSeq() <= t.snapshot) continue;
        for (int j = i + 1; j < t.n; j++) if (t.key[j] == k && t.kind[j] == OpRecord.READ) return false;
        int f = t.firstOn(k);
        if (t.kind[f] != OpRecord.READ) continue;
        int p = t.rLen[f];
        if (p >= 0 && p < k.len && k.has(p, (byte) (KeyState.F_OK | KeyState.F_RMW))) witness = k;
      }
      if (witness == null) return false;
      markActed(e);
      firedKey = witness;
      firedSession = s;
      return true;
    }

    @Override void onComplete(Engine e, Session s, Txn t, int reported, int seq) {
      outstanding--;
      if (t.role == ROLE_MAIN && s == firedSession && firedKey != null) {
        if (reported == Engine.OK) enqueue(e, s, readLatest(firedKey), ROLE_FOLLOW);
        else firedKey = null;
      } else if (t.role == ROLE_FOLLOW && reported == Engine.OK) {
        e.bugFirings++;
      }
      if (outstanding == 0) finish(e);
    }
  }

  /**
   * Stale realtime read, on the strictly serializable store: right after C commits a write to k,
   * an idle session whose past is older than C reads k as it was just before C (a consistent
   * prefix, at most as old as its session's floor), although C completed before the read was
   * invoked; a follow-up read of k on the same session shows the version order. Breaks
   * strict-serializable and strong-snapshot-isolation only.
   */
  static final class StaleRealtimeRead extends BugScenario {
    private boolean staleOk;

    private StaleRealtimeRead(Engine e, Session r, KeyState k, int seq) {
      super(e);
      reserve(e, r);
      enqueue(e, r, new Shape(1).readFixed(0, k, k.prefixLen(seq - 1)).view(seq - 1), ROLE_MAIN);
      enqueue(e, r, readLatest(k), ROLE_FOLLOW);
    }

    static void start(Engine e, Session s, Txn t, int seq) {
      KeyState k = evidentKey(e, t, seq);
      if (k == null) return;
      Session r = e.idleSession(seq - 1, s, null);
      if (r != null) new StaleRealtimeRead(e, r, k, seq);
    }

    @Override void onComplete(Engine e, Session s, Txn t, int reported, int seq) {
      outstanding--;
      if (t.role == ROLE_MAIN) staleOk = reported == Engine.OK;
      else if (staleOk && reported == Engine.OK) e.bugFirings++;
      if (outstanding == 0) finish(e);
    }
  }

  /**
   * Fractured read (Cerone et al. Fig. 2c; Plume TAP-k/l): C wrote x and y; a reader reads y as
   * it was before C, then x right after C, and a follow-up read of y on the same session shows
   * C's version of y after the one the reader saw. The stale read comes first in program order,
   * so monotonic atomic view holds (no read of a key older than one already seen): breaks RA
   * (hence TCC, SI, SER), keeps RC and CI.
   */
  static final class FracturedRead extends BugScenario {
    private boolean readerOk;

    private FracturedRead(Engine e, Session r, KeyState x, KeyState y, int seq) {
      super(e);
      reserve(e, r);
      Shape sh = new Shape(2).readFixed(0, y, y.prefixLen(seq - 1)).readFixed(1, x, x.prefixLen(seq)).view(seq);
      enqueue(e, r, sh, ROLE_MAIN);
      enqueue(e, r, readLatest(y), ROLE_FOLLOW);
    }

    static void start(Engine e, Session s, Txn t, int seq) {
      ArrayList<KeyState> ks = writtenKeys(t);
      if (ks.size() < 2) return;
      KeyState y = evidentKey(e, t, seq);
      if (y == null) return;
      KeyState x = ks.get(0) == y ? ks.get(1) : ks.get(0);
      Session r = e.idleSession(Integer.MAX_VALUE, s, null);
      if (r != null) new FracturedRead(e, r, x, y, seq);
    }

    @Override void onComplete(Engine e, Session s, Txn t, int reported, int seq) {
      outstanding--;
      if (t.role == ROLE_MAIN) readerOk = reported == Engine.OK;
      else if (readerOk && reported == Engine.OK) e.bugFirings++;
      if (outstanding == 0) finish(e);
    }
  }

  /**
   * Causality violation (Cerone et al. Fig. 2d; Plume TAP-m/n): T1 wrote x and committed. A
   * shaped T2 on one held session reads x (from T1, or from whoever wrote x last by then) and
   * writes a fresh key y. Then T3, on a second session held since T1's commit (so its past is
   * older than T1), reads x as it was before x's writer and y from T2. T3 reads nothing directly
   * from that writer, and T2 does not write x, so read atomicity holds; the causal chain
   * writer → T2 → T3 is broken. Breaks TCC (hence SI, SER), keeps RA, RC, CI.
   */
  static final class CausalityViolation extends BugScenario {
    private final Session s2, s3;
    private final KeyState x, y;

    private CausalityViolation(Engine e, Session s2, Session s3, KeyState x) {
      super(e);
      this.s2 = s2;
      this.s3 = s3;
      this.x = x;
      this.y = e.freshKey();
      reserve(e, s2);
      reserve(e, s3);
      Shape t2 = new Shape(2).read(0, x).write(1, y, e.lists ? OpRecord.APPEND : OpRecord.WRITE);
      enqueue(e, s2, t2, ROLE_MAIN);
    }

    static void start(Engine e, Session s, Txn t, int seq) {
      KeyState x = evidentKey(e, t, seq);
      if (x == null) return;
      Session s3 = e.idleSession(seq - 1, s, null);
      if (s3 == null) return;
      Session s2 = e.idleSession(Integer.MAX_VALUE, s, s3);
      if (s2 == null) return;
      new CausalityViolation(e, s2, s3, x);
    }

    @Override void onComplete(Engine e, Session s, Txn t, int reported, int seq) {
      outstanding--;
      if (t.role == ROLE_MAIN) {
        int len = t.rLen[0];
        if (reported != Engine.OK || seq == 0 || len < 1) {
          finish(e);
          return;
        }
        int w = x.seqs[len - 1];
        boolean evident = e.lists || len == 1 || x.has(len - 1, KeyState.F_RMW);
        if (!x.has(len - 1, KeyState.F_OK) || w <= s3.floor || !evident) {
          finish(e);
          return;
        }
        Shape t3 = new Shape(2).readFixed(0, x, x.prefixLen(w - 1)).readFixed(1, y, y.prefixLen(seq)).view(seq);
        enqueue(e, s3, t3, ROLE_FOLLOW);
        release(e, s2);
      } else {
        if (reported == Engine.OK) e.bugFirings++;
        finish(e);
      }
    }
  }

  /**
   * Long fork (Cerone et al. Fig. 2e; Biswas–Enea Fig. 3f): c1 commits a write to x at seq a
   * while c2, whose snapshot predates a and whose writes avoid c1's keys, is in flight. Two idle
   * sessions whose pasts predate a are held. When c2 commits at b, writing y (whose previous
   * version predates a), one reader reads x and y at b-1 (sees c1, not c2) and the other reads x
   * at a-1, then y at b (sees c2, not c1). Each reader's view is causally closed and its reads go
   * forward in commit order, so TCC, RA, RC and CI hold; together they admit no single commit
   * order: breaks SI and everything stronger.
   */
  static final class LongFork extends BugScenario {
    private final Session r1, r2;
    private final KeyState x;
    private final ArrayList<KeyState> c1Keys;
    private final int a;
    private int oks;

    private LongFork(Engine e, Session r1, Session r2, KeyState x, ArrayList<KeyState> c1Keys, int a, Txn c2) {
      super(e);
      this.r1 = r1;
      this.r2 = r2;
      this.x = x;
      this.c1Keys = c1Keys;
      this.a = a;
      reserve(e, r1);
      reserve(e, r2);
      c2.scen = this;
      c2.role = ROLE_WATCHED;
    }

    static void start(Engine e, Session s, Txn c1, int a) {
      KeyState x = evidentKey(e, c1, a);
      if (x == null) return;
      ArrayList<KeyState> c1Keys = writtenKeys(c1);
      Txn c2 = null;
      int n = e.sessions.length, start = e.rng.nextInt(n);
      for (int k = 0; k < n && c2 == null; k++) {
        Session o = e.sessions[(start + k) % n];
        Txn t = o.txn;
        if (o == s || !o.inFlight || o.crashed || t.shape != null || t.scen != null || t.step == 0) continue;
        boolean disjoint = true, other = false;
        for (int i = 0; i < t.n; i++) {
          if (t.kind[i] == OpRecord.READ) continue;
          if (c1Keys.contains(t.key[i])) disjoint = false;
          else other = true;
        }
        if (disjoint && other) c2 = t;
      }
      if (c2 == null) return;
      Session r1 = e.idleSession(a - 1, s, null);
      if (r1 == null) return;
      Session r2 = e.idleSession(a - 1, s, r1);
      if (r2 == null) return;
      new LongFork(e, r1, r2, x, c1Keys, a, c2);
    }

    @Override void onComplete(Engine e, Session s, Txn t, int reported, int b) {
      if (t.role == ROLE_WATCHED) {
        KeyState y = reported == Engine.OK && b > 0 ? pickY(e, t, b) : null;
        if (y == null) {
          finish(e);
          return;
        }
        enqueue(e, r1, new Shape(2).readFixed(0, x, x.prefixLen(b - 1)).readFixed(1, y, y.prefixLen(b - 1))
            .view(b - 1), ROLE_MAIN);
        enqueue(e, r2, new Shape(2).readFixed(0, x, x.prefixLen(a - 1)).readFixed(1, y, y.prefixLen(b))
            .view(b), ROLE_MAIN);
        return;
      }
      outstanding--;
      if (reported == Engine.OK) oks++;
      if (outstanding == 0) {
        if (oks == 2) e.bugFirings++;
        finish(e);
      }
    }

    /** A key c2 wrote, outside c1's, whose previous version predates a and whose order is evident. */
    private KeyState pickY(Engine e, Txn c2, int b) {
      if (!e.lists && x.prefixLen(b - 1) != x.prefixLen(a)) return null;
      for (KeyState y : writtenKeys(c2)) {
        if (c1Keys.contains(y)) continue;
        int before = y.prefixLen(b - 1);
        if (before > 0 && y.seqs[before - 1] >= a) continue;
        if (!orderEvident(e, y, b)) continue;
        return y;
      }
      return null;
    }
  }
}
