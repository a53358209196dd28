/**
 * What a test, or a test file, leaves to be undone: closed, removed, dropped when it ends, last registered first.
 * The hooks that run them are registered for every file by test/setup.ts: a helper module is evaluated once a
 * worker (vitest reuses workers and their modules from file to file), so hooks it registered at its import would
 * belong to the first file that imported it only.
 */
type Cleanup = () => unknown;

const afterTest: Cleanup[] = [];
const afterFile: Cleanup[] = [];

/** `cleanup` runs when the current test ends, pass or fail. */
export function afterThisTest(cleanup: Cleanup): void {
  afterTest.push(cleanup);
}

/** `cleanup` runs when the current test file ends. */
export function afterThisFile(cleanup: Cleanup): void {
  afterFile.push(cleanup);
}

async function runAll(cleanups: Cleanup[]): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!();
}

export const endTest = (): Promise<void> => runAll(afterTest);
export const endFile = (): Promise<void> => runAll(afterFile);
