#!/usr/bin/env node
// Starts the HTTP server from its bundle, or from its sources when the bundle is not built or stale (bundle.mjs).
import { ENTRIES, importEntry } from './bundle.mjs';

await importEntry(ENTRIES.server, 'server');
