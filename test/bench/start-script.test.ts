import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, npmStartNodeOptions, serverNodeOptions } from '../../bench/processes.ts';

describe('the server as npm start runs it', () => {
  it('reads the Node options of a start script shaped `node [options] bin/server.mjs`', () => {
    expect(npmStartNodeOptions('node bin/server.mjs')).toEqual([]);
    expect(npmStartNodeOptions(' node --a=1  --b bin/server.mjs ')).toEqual(['--a=1', '--b']);
    expect(npmStartNodeOptions('exec node --a=1 bin/server.mjs')).toEqual(['--a=1']);
    expect(() => npmStartNodeOptions('tsx src/server.ts')).toThrow(/not "\[exec\] node \[options\] bin\/server.mjs"/);
    expect(() => npmStartNodeOptions('node stray bin/server.mjs')).toThrow();
  });

  it("package.json's start script has that shape, and Node accepts its options", () => {
    const start = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;
    expect(serverNodeOptions()).toEqual(npmStartNodeOptions(start));
    const run = spawnSync(process.execPath, [...serverNodeOptions(), '-e', ''], { encoding: 'utf8' });
    expect([run.status, run.stderr]).toEqual([0, '']);
  });
});
