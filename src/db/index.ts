export { openDatabase, pgliteDirFor, MIGRATIONS_FOLDER, type Db, type Database, type DatabaseOptions } from './client.ts';
export * as tables from './schema.ts';
