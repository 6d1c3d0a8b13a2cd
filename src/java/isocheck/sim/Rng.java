package isocheck.sim;

/**
 * SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators", OOPSLA 2014):
 * small, fast, and fully specified, so a seed yields the same history on every JVM.
 */
final class Rng {
  private long state;

  Rng(long seed) { state = seed; }

  long nextLong() {
    long z = (state += 0x9E3779B97F4A7C15L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Uniform in [0, n), n > 0 (multiply-shift; the bias is below 2^-32 · n). */
  int nextInt(int n) { return (int) (((nextLong() >>> 32) * n) >>> 32); }

  /** Uniform in [0, 1). */
  double nextDouble() { return (nextLong() >>> 11) * 0x1.0p-53; }

  boolean nextBoolean() { return nextLong() < 0; }

  boolean chance(double p) { return p > 0 && nextDouble() < p; }
}
