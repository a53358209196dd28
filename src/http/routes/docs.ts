import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';

/** The reference page's paths: no key needed, like the OpenAPI document it is built from. */
export const DOCS_PATHS = ['/docs', '/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/init.js'];

/** Swagger UI's prebuilt files, read once from the installed package: served by tradebook itself, no internet needed. */
function swaggerUiFile(name: string): Buffer {
  const folder = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return fs.readFileSync(path.join(folder, name));
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>tradebook API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// Built from the served document; the key is entered with Authorize and kept by the page only while it is open.
// No validator badge: it would send the document to an outside service.
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#reference', deepLinking: true, persistAuthorization: false, validatorUrl: null });\n`;

/**
 * The page runs Swagger UI's own script and nothing else: every script, style, font and call comes from this
 * server (the images Swagger UI draws are data: URLs), and no other site may frame it.
 */
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

type Asset = [body: Buffer | string, type: string];
let assets: Record<string, Asset> | undefined;

/** The page and its assets, read on the first request for one of them. */
function docsAssets(): Record<string, Asset> {
  assets ??= {
    '/docs': [PAGE, 'text/html; charset=utf-8'],
    '/docs/swagger-ui.css': [swaggerUiFile('swagger-ui.css'), 'text/css; charset=utf-8'],
    '/docs/swagger-ui-bundle.js': [swaggerUiFile('swagger-ui-bundle.js'), 'text/javascript; charset=utf-8'],
    '/docs/init.js': [INIT, 'text/javascript; charset=utf-8'],
  };
  return assets;
}

/** The API reference at /docs: Swagger UI over /api/openapi.json, every asset served from here. */
export function docsRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  for (const route of DOCS_PATHS) {
    app.get(route, (c) => {
      const [body, type] = docsAssets()[route];
      return c.body(body as string, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600', 'Content-Security-Policy': PAGE_POLICY, 'X-Frame-Options': 'DENY' });
    });
  }
  return app;
}
