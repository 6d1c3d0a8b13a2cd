package isocheck.sim;

import isocheck.history.History;

/** A generated history, built and ready to check, with what the simulator knows about it. */
public record SimHistory(History history, SimResult result) {}
