package isocheck.clock;

/**
 * Causal clocks: one clock per node of a graph whose nodes are grouped into sessions (each
 * session's nodes form a chain), with one entry per session. Entry {@code s} of node {@code t}'s
 * clock is the highest 1-based position, within session {@code s}, of a node that reaches
 * {@code t} (reflexively), or 0 if none does. So {@code a} reaches {@code b} iff
 * {@code get(b, session(a)) >= index(a)}, which {@link #reaches} answers in O(1).
 *
 * <p>Clocks are built once, in a topological order of the graph: {@link #start} node t, then
 * {@link #join} every predecessor of t (each one already complete: started and joined earlier),
 * and never touched again. The first join of a node that has a predecessor in its own session
 * should be that predecessor (the common case copies it). Implementations: {@link VectorClocks}
 * (flat int vectors) and {@link TreeClocks} (Mathur et al., ASPLOS'22, as Plume §4.3 uses them).
 */
public interface Clocks {
  /** Starts node t of session s (0-based) at position index (1-based): it knows itself only. */
  void start(int t, int s, int index);

  /** clock[t] := clock[t] ⊔ clock[p], for a complete predecessor p of the node being built. */
  void join(int t, int p);

  /** Entry s of t's clock. */
  int get(int t, int s);

  /** Whether node a (session sa, position ia) reaches node b: get(b, sa) >= ia. */
  default boolean reaches(int sa, int ia, int b) { return get(b, sa) >= ia; }

  /** Number of sessions (entries per clock). */
  int sessions();

  /** Bytes held, for the benchmark. */
  long bytes();

  /** "vector" or "tree". */
  String name();
}
