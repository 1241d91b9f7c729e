// The browser code of the chat (TypeScript in ./client) bundled by esbuild
// once per process, so `npm start` and the tests need no separate build step.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

const ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'client', 'app.ts');

let bundle: Promise<string> | null = null;

/** The bundled script; built on first call and kept. A failed build is tried again on the next call. */
export function clientBundle(): Promise<string> {
  if (!bundle) {
    bundle = import('esbuild')
      .then((esbuild) =>
        esbuild.build({
          entryPoints: [ENTRY],
          bundle: true,
          format: 'esm',
          target: 'es2022',
          platform: 'browser',
          write: false,
          logLevel: 'silent',
          legalComments: 'none',
          sourcemap: 'inline',
        }),
      )
      .then((r) => r.outputFiles[0].text);
    bundle.catch(() => {
      bundle = null;
    });
  }
  return bundle;
}

/** Serves the bundle as `/assets/app.js`; starts building it at once so the first page load does not wait. */
export function serveClientBundle(logger: Logger): RequestHandler {
  clientBundle().catch((err) => logger.error({ err }, "could not bundle the web chat's browser code"));
  return async (_req, res) => {
    try {
      const js = await clientBundle();
      res.set({ 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' }).type('text/javascript').send(js);
    } catch (err) {
      logger.error({ err }, "could not bundle the web chat's browser code");
      res.status(500).type('text').send("The chat's script could not be built; the server log says why.");
    }
  };
}
