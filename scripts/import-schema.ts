// `npm run import-schema`: writes docs/import-schema.json from the import's own schemas (test/commands/import-schema.test.ts
// fails while the file differs from what they make).
import fs from 'node:fs';
import path from 'node:path';
import { importJsonSchema } from '../src/commands/import-schema.ts';

const file = path.resolve(import.meta.dirname, '../docs/import-schema.json');
fs.writeFileSync(file, `${JSON.stringify(importJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
