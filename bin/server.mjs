#!/usr/bin/env node
// Starts the HTTP server from its bundle (built or refreshed first when the sources changed).
import { ENTRIES, importBundle } from './bundle.mjs';

await importBundle(ENTRIES.server, 'server');
