import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
// @ts-expect-error: a plain ES module of the entry points, without type declarations
import { importBundle } from '../../bin/bundle.mjs';
import { tempDir } from '../helpers.ts';

/** A tiny project: an entry importing a second module, and a lock file. */
function project() {
  const root = tempDir();
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src/entry.ts'), "import { word } from './word.ts';\nexport const said: string = `say ${word}`;\n");
  fs.writeFileSync(path.join(root, 'src/word.ts'), "export const word = 'one';\n");
  fs.writeFileSync(path.join(root, 'package-lock.json'), '{}');
  return root;
}

test('the bundle is built on first use and reused while its sources are unchanged', async () => {
  const root = project();
  expect((await importBundle('src/entry.ts', 'first', root)).said).toBe('say one');
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'dist/first.json'), 'utf8'));
  expect(manifest.inputs).toEqual(['src/word.ts', 'src/entry.ts', 'package-lock.json']);
  const built = fs.statSync(path.join(root, 'dist/first.mjs')).mtimeMs;
  await importBundle('src/entry.ts', 'first', root);
  expect(fs.statSync(path.join(root, 'dist/first.mjs')).mtimeMs).toBe(built);
});

test('a changed source, a changed lock file or a lost manifest rebuilds the bundle before it runs', async () => {
  const root = project();
  await importBundle('src/entry.ts', 'a', root);
  // An imported module changed: the next start runs the new code, never the stale bundle.
  fs.writeFileSync(path.join(root, 'src/word.ts'), "export const word = 'two';\n");
  expect((await importBundle('src/entry.ts', 'b', root)).said).toBe('say two');
  fs.writeFileSync(path.join(root, 'src/word.ts'), "export const word = 'three';\n");
  await importBundle('src/entry.ts', 'c', root);
  expect(fs.readFileSync(path.join(root, 'dist/c.mjs'), 'utf8')).toContain('three');
  const before = fs.readFileSync(path.join(root, 'dist/c.json'), 'utf8');
  fs.writeFileSync(path.join(root, 'package-lock.json'), '{"lockfileVersion":3}');
  await importBundle('src/entry.ts', 'c', root);
  expect(fs.readFileSync(path.join(root, 'dist/c.json'), 'utf8')).not.toBe(before);
  fs.rmSync(path.join(root, 'dist/c.json'));
  fs.writeFileSync(path.join(root, 'src/word.ts'), "export const word = 'four';\n");
  await importBundle('src/entry.ts', 'c', root);
  expect(fs.readFileSync(path.join(root, 'dist/c.mjs'), 'utf8')).toContain('four');
});
