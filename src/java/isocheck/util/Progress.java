package isocheck.util;

/**
 * Where a long check says how far it has got: the stage it is in and, where it can tell, how
 * much of that stage is done. Stages call {@link #stage} when they begin and {@link #done} now
 * and then from their loops (every few thousand items, not every one); {@link #NONE}, the
 * default, does nothing, so a check no one watches pays an empty call per stage.
 *
 * <p>Stage names are short and human: {@code loading}, {@code analysis}, {@code serializable:
 * pruning}, {@code tcc: commit order}. A listener ({@link ProgressMeter}) turns them into
 * lines on a terminal or a log, past a threshold of time.
 */
public interface Progress {
  /** Begins a stage with {@code total} units of {@code unit} to do (total ≤ 0: not known; unit null: none). */
  void stage(String name, long total, String unit);

  /** Units of the current stage done so far. */
  void done(long units);

  /** Begins a stage whose amount of work is not known. */
  default void stage(String name) { stage(name, 0, null); }

  /** Listens to nothing. */
  Progress NONE = new Progress() {
    @Override public void stage(String name, long total, String unit) {}
    @Override public void done(long units) {}
  };

  /** Units named "bytes" are shown as KB, MB or GB. */
  String BYTES = "bytes";
}
