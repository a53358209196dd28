#!/usr/bin/env node
// Starts the HTTP server; TypeScript sources are loaded through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/server.ts');
