import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import type { Mount } from '../http.ts';
import { documentsApi } from './api.ts';
import { documentsPages } from './pages.ts';

const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'public');

/**
 * What people do with documents that agents cannot: `/docs/…` pages and the
 * `/api/docs/…` JSON API (browse and read, move documents, manage collections, assign seats).
 */
export const mountDocuments: Mount = (web, app) => {
  web.use('/docs-assets', express.static(PUBLIC_DIR, { index: false, fallthrough: false }));
  web.use('/api/docs', documentsApi(app));
  web.use('/docs', documentsPages(app));
};
