import { afterAll, afterEach } from 'vitest';
import { endFile, endTest } from './cleanups.ts';

// Evaluated again for every test file (vitest's setupFiles), unlike the modules it imports.
afterEach(endTest);
afterAll(endFile);
