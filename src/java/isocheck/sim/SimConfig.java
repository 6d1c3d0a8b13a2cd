package isocheck.sim;

import isocheck.history.History;

/**
 * Everything a simulation run depends on; immutable. Build one with {@link #builder()}: every
 * field has a default, and the same configuration (same seed) always yields the same history.
 *
 * <pre>
 * SimConfig c = SimConfig.builder().seed(7).txns(10_000).store(Store.SNAPSHOT_ISOLATION)
 *     .bug(Bug.LONG_FORK).build();
 * </pre>
 *
 * <p>The workload follows Jepsen's list-append and rw-register generators: each transaction has
 * a number of micro-ops drawn from [minOps, maxOps], each a read with probability readFraction or
 * else an append (or write), on a key drawn from a pool of active keys by the key distribution.
 * Values are unique per key (a per-key counter from 1). Once a key has been given
 * maxWritesPerKey values it is retired and its pool slot gets a fresh key id, as Jepsen rotates
 * keys; 0 never rotates (then lists, and the memory the store keeps, grow without bound).
 */
public final class SimConfig {
  /** How keys are drawn from the pool of active keys. */
  public enum KeyDist {
    /** Every active key equally likely. */
    UNIFORM,
    /** Zipf over pool slots: slot i (0-based) has weight 1/(i+1)^s, s = zipfExponent. */
    ZIPF,
    /** 80% of accesses go to the first 20% of the pool. */
    HOTSPOT
  }

  public final long seed;
  public final History.Workload workload;
  public final Store store;
  /** Number of transactions invoked in all (bug-shaped ones included). */
  public final int txns;
  /** Concurrent sessions (Jepsen's concurrency); session i starts as process i. */
  public final int sessions;
  public final int minOps, maxOps;
  public final double readFraction;
  /** Each transaction reads only (with probability readFraction) or writes only (Viper's BlindW workloads). */
  public final boolean blind;
  public final int keys;
  public final KeyDist keyDist;
  public final double zipfExponent;
  public final int maxWritesPerKey;
  /** Probability that a transaction the store would commit is aborted instead and reported {@code :fail}. */
  public final double failRate;
  /** Probability that a transaction ends {@code :info}: it commits or not (a coin flip) and its process is retired. */
  public final double infoRate;
  /** Invocations left without completion when the run ends (a crash); capped at the sessions in flight. */
  public final int pendingAtEnd;
  /** The injected bug, or null. */
  public final Bug bug;
  /** Probability that an opportunity for the bug is taken. */
  public final double bugRate;

  private SimConfig(Builder b) {
    seed = b.seed;
    workload = b.workload;
    store = b.store;
    txns = b.txns;
    sessions = b.sessions;
    minOps = b.minOps;
    maxOps = b.maxOps;
    readFraction = b.readFraction;
    blind = b.blind;
    keys = b.keys;
    keyDist = b.keyDist;
    zipfExponent = b.zipfExponent;
    maxWritesPerKey = b.maxWritesPerKey;
    failRate = b.failRate;
    infoRate = b.infoRate;
    pendingAtEnd = b.pendingAtEnd;
    bug = b.bug;
    bugRate = b.bugRate;
  }

  public static Builder builder() { return new Builder(); }

  /** A builder holding this configuration's values, to derive a variant. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.seed = seed;
    b.workload = workload;
    b.store = store;
    b.txns = txns;
    b.sessions = sessions;
    b.minOps = minOps;
    b.maxOps = maxOps;
    b.readFraction = readFraction;
    b.blind = blind;
    b.keys = keys;
    b.keyDist = keyDist;
    b.zipfExponent = zipfExponent;
    b.maxWritesPerKey = maxWritesPerKey;
    b.failRate = failRate;
    b.infoRate = infoRate;
    b.pendingAtEnd = pendingAtEnd;
    b.bug = bug;
    b.bugRate = bugRate;
    return b;
  }

  @Override public String toString() {
    return "SimConfig{seed=" + seed + ", workload=" + workload.cliName + ", store=" + store
        + ", txns=" + txns + ", sessions=" + sessions + ", ops=" + minOps + ".." + maxOps
        + ", readFraction=" + readFraction + (blind ? ", blind" : "") + ", keys=" + keys + ", keyDist=" + keyDist
        + (keyDist == KeyDist.ZIPF ? "(" + zipfExponent + ")" : "")
        + ", maxWritesPerKey=" + maxWritesPerKey + ", failRate=" + failRate + ", infoRate=" + infoRate
        + ", pendingAtEnd=" + pendingAtEnd + ", bug=" + bug + (bug == null ? "" : ", bugRate=" + bugRate) + "}";
  }

  public static final class Builder {
    private long seed = 0;
    private History.Workload workload = History.Workload.APPEND;
    private Store store = Store.STRICT_SERIALIZABLE;
    private int txns = 1000;
    private int sessions = 10;
    private int minOps = 1, maxOps = 4;
    private double readFraction = 0.5;
    private boolean blind = false;
    private int keys = 1000;
    private KeyDist keyDist = KeyDist.UNIFORM;
    private double zipfExponent = 1.0;
    private int maxWritesPerKey = 32;
    private double failRate = 0.05;
    private double infoRate = 0.01;
    private int pendingAtEnd = 2;
    private Bug bug = null;
    private double bugRate = 0.05;

    private Builder() {}

    public Builder seed(long v) { seed = v; return this; }
    /** {@link History.Workload#APPEND} (list-append, the default) or {@link History.Workload#REGISTER} (rw-register). */
    public Builder workload(History.Workload v) { workload = v; return this; }
    public Builder store(Store v) { store = v; return this; }
    public Builder txns(int v) { txns = v; return this; }
    public Builder sessions(int v) { sessions = v; return this; }
    /** A fixed number of micro-ops per transaction. */
    public Builder opsPerTxn(int n) { minOps = n; maxOps = n; return this; }
    /** Micro-ops per transaction drawn uniformly from [min, max]. */
    public Builder opsPerTxn(int min, int max) { minOps = min; maxOps = max; return this; }
    public Builder readFraction(double v) { readFraction = v; return this; }
    /** Read-only or write-only transactions (the read fraction picks per transaction, not per micro-op). */
    public Builder blind(boolean v) { blind = v; return this; }
    public Builder keys(int v) { keys = v; return this; }
    public Builder keyDist(KeyDist v) { keyDist = v; return this; }
    /** Zipf key distribution with exponent s. */
    public Builder zipf(double s) { keyDist = KeyDist.ZIPF; zipfExponent = s; return this; }
    public Builder maxWritesPerKey(int v) { maxWritesPerKey = v; return this; }
    public Builder failRate(double v) { failRate = v; return this; }
    public Builder infoRate(double v) { infoRate = v; return this; }
    public Builder pendingAtEnd(int v) { pendingAtEnd = v; return this; }
    /** Attaches a bug (null for none); it must be one the store supports, see {@link Bug#stores()}. */
    public Builder bug(Bug v) { bug = v; return this; }
    public Builder bugRate(double v) { bugRate = v; return this; }

    public SimConfig build() {
      check(workload != null, "workload must be set");
      check(store != null, "store must be set");
      check(txns >= 0, "txns must be >= 0, got " + txns);
      check(sessions >= 1, "sessions must be >= 1, got " + sessions);
      check(minOps >= 1 && maxOps >= minOps, "ops per txn must satisfy 1 <= min <= max, got " + minOps + ".." + maxOps);
      check(readFraction >= 0 && readFraction <= 1, "readFraction must be in [0, 1], got " + readFraction);
      check(keys >= 1, "keys must be >= 1, got " + keys);
      check(keyDist != null, "keyDist must be set");
      check(zipfExponent > 0, "zipf exponent must be > 0, got " + zipfExponent);
      check(maxWritesPerKey >= 0, "maxWritesPerKey must be >= 0 (0 = never rotate), got " + maxWritesPerKey);
      check(failRate >= 0 && infoRate >= 0 && failRate + infoRate <= 1,
          "failRate and infoRate must be >= 0 with a sum <= 1, got " + failRate + " and " + infoRate);
      check(pendingAtEnd >= 0, "pendingAtEnd must be >= 0, got " + pendingAtEnd);
      check(bugRate >= 0 && bugRate <= 1, "bugRate must be in [0, 1], got " + bugRate);
      if (bug != null) {
        check(bug.stores().contains(store), "bug " + bug + " applies to " + bug.stores() + ", not to " + store);
      }
      return new SimConfig(this);
    }

    private static void check(boolean ok, String msg) {
      if (!ok) throw new IllegalArgumentException(msg);
    }
  }
}
