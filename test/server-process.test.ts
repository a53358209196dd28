import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("a server a test file started and never stopped (a test that timed out) ends with the test file's process", async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-left-running-'));
  try {
    // A test file's process in miniature: it starts a server, then ends without stopping it.
    const script = `
      import { startServer } from ${JSON.stringify(path.join(ROOT, 'test/server-process.ts'))};
      const server = await startServer(${JSON.stringify(path.join(folder, 'left.db'))}, 'tb_left_running_0123456789abcdefghijkl');
      console.log(server.child.pid);
      process.exit(0);
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    const pid = Number(run.stdout.trim());
    expect(pid, run.stderr).toBeGreaterThan(0);
    const deadline = Date.now() + 5000;
    while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive(pid)).toBe(false);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
