// Every table, by concept (src/infra/db/schema/): what the repositories and drizzle-kit import.
export * from './schema/core.ts';
export * from './schema/jobs.ts';
export * from './schema/web.ts';
export * from './schema/surfaces.ts';
export * from './schema/work.ts';
