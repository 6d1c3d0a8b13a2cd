package isocheck.sim;

import isocheck.history.Kw;
import isocheck.history.OpRecord;
import isocheck.history.OpSink;
import isocheck.history.OpType;
import java.util.Arrays;

/**
 * Simulated linearizable registers with compare-and-set, for linearizability benchmarks and
 * tests: {@code sessions} client processes issue Jepsen register ops ({@code :read},
 * {@code :write}, {@code :cas}) on keys drawn uniformly, with {@code jepsen.independent}'s
 * {@code [k v]} values; each op takes effect at one moment between its invocation and its
 * completion (so the history is linearizable); a compare-and-set that finds another value
 * fails ({@code :fail}); an op completes {@code :info} with probability {@code infoRate}
 * (whether it took effect or not), after which its process is replaced by a new one, as in
 * Jepsen. Written values are unique per key. A compare-and-set expects the value its process
 * last saw on that key (often current, sometimes stale: then it fails). With
 * {@code staleRate} &gt; 0, a read returns the value the current one replaced, once the
 * compare-and-set that replaced it has completed before the read was invoked: a stale read, not
 * linearizable.
 */
public final class CasRegisters {
  private CasRegisters() {}

  /** Streams a history of n ops to sink (ending with {@link OpSink#end()}); returns the number of stale reads served. */
  public static long run(long seed, int n, int keys, int sessions, double infoRate, double staleRate, OpSink sink) {
    Rng rng = new Rng(seed);
    long[] cur = new long[keys], prev = new long[keys], counter = new long[keys];
    Arrays.fill(cur, -1);
    Arrays.fill(prev, -1);
    // Per key: whether the current value came from a compare-and-set that has completed, and when.
    long[] casDoneAt = new long[keys];
    int[] casBy = new int[keys];
    Arrays.fill(casDoneAt, -1);
    Arrays.fill(casBy, -1);
    long[][] seen = new long[sessions][keys];
    for (long[] s : seen) Arrays.fill(s, -1);
    int[] proc = new int[sessions];
    for (int s = 0; s < sessions; s++) proc[s] = s;
    int nextProc = sessions;
    // Pending op per session: kind (0 none, 1 read, 2 write, 3 cas), key, a, b, effected, result, invoked at.
    int[] kind = new int[sessions], key = new int[sessions];
    long[] a = new long[sessions], b = new long[sessions], res = new long[sessions], invokedAt = new long[sessions];
    boolean[] effected = new boolean[sessions], failed = new boolean[sessions];
    OpRecord r = new OpRecord();
    long pos = 0, started = 0, stale = 0;
    int pending = 0;
    while (started < n || pending > 0) {
      int s = rng.nextInt(sessions);
      if (kind[s] == 0) {
        if (started >= n) continue;
        int k = rng.nextInt(keys);
        double u = rng.nextDouble();
        kind[s] = u < 0.4 ? 1 : u < 0.6 ? 2 : 3;
        key[s] = k;
        if (kind[s] == 2) a[s] = ++counter[k];
        if (kind[s] == 3) {
          a[s] = seen[s][k];
          b[s] = ++counter[k];
        }
        effected[s] = false;
        failed[s] = false;
        invokedAt[s] = pos;
        emit(r, sink, pos++, OpType.INVOKE, proc[s], kind[s], k, kind[s] == 1 ? Long.MIN_VALUE : a[s], b[s]);
        started++;
        pending++;
        continue;
      }
      int k = key[s];
      if (!effected[s]) {
        effected[s] = true;
        switch (kind[s]) {
          case 1:
            res[s] = cur[k];
            if (staleRate > 0 && casDoneAt[k] >= 0 && casDoneAt[k] < invokedAt[s] && rng.nextDouble() < staleRate) {
              res[s] = prev[k];
              stale++;
            }
            seen[s][k] = res[s];
            break;
          case 2:
            prev[k] = cur[k];
            cur[k] = a[s];
            casDoneAt[k] = -1;
            casBy[k] = -1;
            break;
          default:
            if (cur[k] == a[s]) {
              prev[k] = cur[k];
              cur[k] = b[s];
              casDoneAt[k] = -1;
              casBy[k] = s;
              seen[s][k] = b[s];
            } else {
              failed[s] = true;
              seen[s][k] = cur[k];
            }
        }
        continue;
      }
      int type = failed[s] ? OpType.FAIL : rng.nextDouble() < infoRate ? OpType.INFO : OpType.OK;
      if (type == OpType.OK && kind[s] == 3 && casBy[k] == s && cur[k] == b[s]) casDoneAt[k] = pos;
      emit(r, sink, pos++, type, proc[s], kind[s], k, kind[s] == 1 ? (type == OpType.OK ? res[s] : Long.MIN_VALUE) : a[s], b[s]);
      if (type == OpType.INFO) {
        proc[s] = nextProc++;
        Arrays.fill(seen[s], -1);
      }
      if (casBy[k] == s) casBy[k] = -1;
      kind[s] = 0;
      pending--;
    }
    sink.end();
    return stale;
  }

  /** One op: value -1 is nil; Long.MIN_VALUE a read's unknown value (nil in the op). */
  private static void emit(OpRecord r, OpSink sink, long pos, int type, int process, int kind, int k, long a, long b) {
    r.reset(pos);
    r.index = pos;
    r.type = type;
    r.typeRaw = new Kw(OpType.name(type));
    r.process = (long) process;
    r.hasProcess = true;
    r.f = new Kw(kind == 1 ? "read" : kind == 2 ? "write" : "cas");
    r.valueShape = OpRecord.VALUE_OTHER;
    Object v = kind == 3 ? Arrays.asList(val(a), val(b)) : val(a);
    r.valueRaw = Arrays.asList((long) k, v);
    sink.op(r);
  }

  private static Object val(long v) { return v < 0 ? null : (Object) v; }
}
