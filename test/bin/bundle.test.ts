import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
// @ts-expect-error: a plain ES module of the entry points, without type declarations
import { buildBundle, freshBundle, importEntry } from '../../bin/bundle.mjs';
import { tempDir } from '../helpers.ts';

const REPOSITORY = path.resolve(import.meta.dirname, '../..');

/** A tiny project: an entry importing a second module, and a lock file. */
function project() {
  const root = tempDir();
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src/entry.ts'), "import { word } from './word.ts';\nexport const said: string = `say ${word}`;\n");
  fs.writeFileSync(path.join(root, 'src/word.ts'), "export const word = 'one';\n");
  fs.writeFileSync(path.join(root, 'package-lock.json'), '{}');
  return root;
}

/** Every file and folder under `root` (node_modules aside) with its size and time: what a process may have written. */
function listing(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => !path.relative(root, path.join(entry.parentPath, entry.name)).startsWith('node_modules'))
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      const stat = fs.lstatSync(file);
      return `${path.relative(root, file)} ${stat.size} ${stat.mtimeMs}`;
    })
    .sort();
}

test('a bundle is built by the build, and run only while its sources and the lock file are as it was built from', async () => {
  const root = project();
  expect(freshBundle('src/entry.ts', 'a', root)).toBeUndefined();
  const bundle = await buildBundle('src/entry.ts', 'a', root);
  expect(JSON.parse(fs.readFileSync(path.join(root, 'dist/a.json'), 'utf8')).inputs).toEqual(['src/word.ts', 'src/entry.ts', 'package-lock.json']);
  expect(freshBundle('src/entry.ts', 'a', root)).toBe(bundle);
  expect((await importEntry('src/entry.ts', 'a', root)).said).toBe('say one');
  // An imported module changed, the lock file changed, the manifest is lost: each makes the bundle stale.
  fs.writeFileSync(path.join(root, 'src/word.ts'), "export const word = 'two';\n");
  expect(freshBundle('src/entry.ts', 'a', root)).toBeUndefined();
  await buildBundle('src/entry.ts', 'a', root);
  expect(fs.readFileSync(bundle, 'utf8')).toContain('two');
  fs.writeFileSync(path.join(root, 'package-lock.json'), '{"lockfileVersion":3}');
  expect(freshBundle('src/entry.ts', 'a', root)).toBeUndefined();
  await buildBundle('src/entry.ts', 'a', root);
  fs.rmSync(path.join(root, 'dist/a.json'));
  expect(freshBundle('src/entry.ts', 'a', root)).toBeUndefined();
});

test('a stale bundle is not run and not rebuilt: the entry runs from its sources and nothing is written', async () => {
  const root = project();
  await buildBundle('src/entry.ts', 'b', root);
  fs.writeFileSync(path.join(root, 'src/word.ts'), "export const word = 'three';\n");
  const before = listing(root);
  expect((await importEntry('src/entry.ts', 'b', root)).said).toBe('say three');
  expect(listing(root)).toEqual(before);
});

/**
 * The code as a deployment holds it, in a new folder: its tracked files without dist/, node_modules linked in.
 * With `built`, `npm run build` has been run there. The server is started as `nobody` when the tests run as root
 * (root writes where the modes say no), and every test checks that nothing in the folder changed.
 */
async function deployedCode(built: boolean): Promise<string> {
  const root = tempDir();
  for (const name of ['bin', 'src', 'package.json', 'package-lock.json', 'tsconfig.json']) fs.cpSync(path.join(REPOSITORY, name), path.join(root, name), { recursive: true });
  fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  fs.symlinkSync(path.join(REPOSITORY, 'node_modules'), path.join(root, 'node_modules'));
  if (built) {
    // As `npm ci` builds: its `prepare` script.
    const build = spawn('npm', ['run', 'prepare'], { cwd: root, stdio: 'inherit' });
    expect(await new Promise((resolve) => build.once('exit', resolve))).toBe(0);
  }
  for (const name of ['', ...fs.readdirSync(root, { recursive: true }).map(String)]) {
    if (name.startsWith('node_modules')) continue;
    const entry = path.join(root, name);
    fs.chmodSync(entry, fs.statSync(entry).isDirectory() ? 0o555 : 0o444);
  }
  return root;
}

/** Starts `bin/server.mjs` of `root` on a free port and asks it /readyz; resolves with what it printed then. */
async function startAndAsk(root: string): Promise<{ ready: number; output: string }> {
  const data = tempDir();
  fs.chmodSync(data, 0o777);
  const asRoot = process.getuid?.() === 0;
  const child = spawn(process.execPath, ['bin/server.mjs'], {
    cwd: root,
    env: { ...process.env, TRADEBOOK_DB: path.join(data, 'tradebook.db'), TRADEBOOK_API_KEY: 'tb_read_only_code_key_0001', PORT: '0', TRADEBOOK_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout!.on('data', () => {
        const match = /listening on port (\d+)/.exec(output);
        if (match) resolve(Number(match[1]));
      });
      void exited.then((code) => reject(new Error(`the server exited (${code}) before listening:\n${output}`)));
    });
    const ready = (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
    return { ready, output };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

test('the server starts from a read-only code folder without dist/: from its sources, writing nothing there', { timeout: 120_000 }, async () => {
  const root = await deployedCode(false);
  const before = listing(root);
  const { ready, output } = await startAndAsk(root);
  expect(ready).toBe(200);
  expect(output).toContain('tradebook: running src/server.ts from its sources: dist/server.mjs is not built (npm run build builds it)');
  expect(listing(root)).toEqual(before);
});

test('after the install’s build, the server starts from a read-only code folder from its bundle, writing nothing there', { timeout: 120_000 }, async () => {
  const root = await deployedCode(true);
  const before = listing(root);
  expect(before.some((line) => line.startsWith(`dist${path.sep}server.mjs `))).toBe(true);
  const { ready, output } = await startAndAsk(root);
  expect(ready).toBe(200);
  expect(output).not.toContain('from its sources');
  expect(listing(root)).toEqual(before);
});

test('the build at install goes on without the sources (a container’s dependency layer); npm run build does not', async () => {
  const root = tempDir();
  for (const name of ['bin', 'package.json', 'package-lock.json']) fs.cpSync(path.join(REPOSITORY, name), path.join(root, name), { recursive: true });
  fs.symlinkSync(path.join(REPOSITORY, 'node_modules'), path.join(root, 'node_modules'));
  const run = (args: string[]) =>
    new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['bin/build.mjs', ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
      child.once('close', (status) => resolve({ status, stderr }));
    });
  const missing = 'tradebook build: src/server.ts, src/cli/main.ts not found: are the sources there yet?\n';
  expect(await run(['--at-install'])).toEqual({ status: 0, stderr: `${missing}tradebook build: no bundle built; the server and the command line run from their sources until \`npm run build\`\n` });
  expect(await run([])).toEqual({ status: 1, stderr: missing });
  expect(fs.existsSync(path.join(root, 'dist'))).toBe(false);
});
