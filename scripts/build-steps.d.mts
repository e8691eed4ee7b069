// Types of build-steps.mjs, for the tests that import it (test/unit/build-steps.test.ts).
export declare const STAMP: string;
export declare function newestMtime(dir: string): number;
export declare function distIsFresh(root: string): boolean;
export declare function withBuildLock<T>(
  root: string,
  fn: () => T,
  options?: { timeoutMs?: number; staleMs?: number; pollMs?: number; onWait?: () => void },
): T;
export declare function buildAndSwap(
  root: string,
  compile: (dir: string) => void | Promise<void>,
  now?: () => Date,
): Promise<{ started: Date; setAside: string | null }>;
export interface Progress {
  step(n: number, total: number, text: string): void;
  heartbeat(what: string, everyMs?: number): () => void;
  done(text: string): void;
}
export declare function progress(write?: (text: string) => void, start?: number, clock?: () => number): Progress;
