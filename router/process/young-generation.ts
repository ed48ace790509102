/**
 * V8's young generation for the workers that serve requests: semi-spaces of up to 32 MB, against
 * Node 20's 16. A burst of work (an event fanned out to a thousand subscribers, each delivery with
 * its promises and result objects) fills the default young generation many times over while most of
 * it is still alive, so each scavenge copies it and promotes it. At 32 MB, a process fanning an
 * answer out to a thousand graphql-ws subscribers spends less CPU and its tail latency falls, for
 * some memory more at rest; 64 MB gave no better latency for much more memory (measured in
 * test/bench/RESULTS.md). It can only be set when a process
 * starts, so a cluster's primary gives it to the workers it forks; an operator's own
 * semi-space size (the primary's argument, or NODE_OPTIONS, which the workers inherit) wins.
 */
export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=32';

/** A size of the operator's: either bound of the semi-spaces, with one dash or two (V8 takes both), `-` or `_`. */
const OWN_SIZE = /^--?(max|min)[-_]semi[-_]space[-_]size=/;

/** The arguments for node that a worker is forked with: its primary's, with the young generation's size unless one is set. */
export function withYoungGeneration(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const set = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].some((argument) => OWN_SIZE.test(argument));
  return set ? [...execArgv] : [...execArgv, YOUNG_GENERATION_FLAG];
}
