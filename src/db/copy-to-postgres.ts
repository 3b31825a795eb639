import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { redactPassword } from "../config";
import { openStore } from "./store";

/** What one table's copy came to: rows in SQLite, and rows in PostgreSQL after the copy. */
export interface CopiedTable {
  table: string;
  source: number;
  copied: number;
}

/**
 * The tables a copy takes: every table of the SQLite database but its migrations' record, parents
 * before children (foreign keys), so each row's references exist when it arrives. Read from the
 * database itself, so a table a later migration adds is copied without a list to keep.
 */
export function tablesToCopy(db: Database): string[] {
  const tables = db
    .query<{ name: string }, []>(
      // Real tables only: the search index is an FTS5 virtual table (with shadow tables), which PostgreSQL has as its own kind.
      "SELECT t.name FROM pragma_table_list t JOIN sqlite_master m ON m.name = t.name WHERE t.schema = 'main' AND t.type = 'table' AND t.name NOT LIKE 'sqlite_%' AND t.name <> 'schema_migrations' ORDER BY m.rowid",
    )
    .all()
    .map((t) => t.name);
  const parents = (table: string) =>
    db
      .query<{ parent: string }, []>(`SELECT DISTINCT "table" AS parent FROM pragma_foreign_key_list('${table}')`)
      .all()
      .map((r) => r.parent)
      .filter((p) => p !== table);
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (table: string) => {
    if (ordered.includes(table) || visiting.has(table)) return;
    visiting.add(table);
    for (const parent of parents(table)) visit(parent);
    ordered.push(table);
  };
  for (const table of tables) visit(table);
  return ordered;
}
// Columns PostgreSQL numbers itself (identity); after the copy its counter continues past the copied ids.
const IDENTITIES: [table: string, column: string][] = [
  ["submissions", "seq"],
  ["outbox", "id"],
  ["audit_events", "id"],
];
// PostgreSQL takes at most 65,535 parameters per statement.
const MAX_PARAMS = 30_000;

/**
 * Copies a SQLite database (brought up to date first) into an empty PostgreSQL one, in one
 * transaction: ids, timestamps and secrets (so cursors, challenges and sessions stay valid) as they
 * are; all of it or, on any failure, nothing. Refuses a PostgreSQL database that already holds
 * owners. Ends by counting every table on both sides; a difference fails the copy.
 */
export async function copyToPostgres(
  sqlitePath: string,
  url: string,
  progress: (line: string) => void,
): Promise<CopiedTable[]> {
  await (await openStore(sqlitePath)).close(); // migrations, so both schemas are the same version
  const target = await openStore(url); // creates the schema in an empty database
  await target.close();
  const source = new Database(sqlitePath, { readonly: true, strict: true });
  const pg = new SQL(url, { max: 1 });
  try {
    return await pg.begin(async (tx) => {
      const [{ n }] = await tx.unsafe("SELECT CAST(count(*) AS INTEGER) AS n FROM owners");
      if (n > 0)
        throw new Error(
          `${redactPassword(url)} already holds data (${n} owners); copy-to fills an empty database only`,
        );
      // The schema's own settings (fresh secrets) give way to the source's.
      await tx.unsafe("DELETE FROM settings");
      await tx.unsafe("DELETE FROM search_backlog");
      const result: CopiedTable[] = [];
      for (const table of tablesToCopy(source)) {
        const columns = source
          .query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}')`)
          .all()
          .map((c) => c.name);
        const total = source.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
        const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
        let done = 0;
        let rows: unknown[][] = [];
        const flush = async () => {
          if (!rows.length) return;
          const placeholders = rows
            .map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(", ")})`)
            .join(", ");
          await tx.unsafe(`INSERT INTO ${table} (${columns.join(", ")}) VALUES ${placeholders}`, rows.flat());
          done += rows.length;
          rows = [];
          progress(`${table}: ${done.toLocaleString("en")} of ${total.toLocaleString("en")}`);
        };
        for (const row of source
          .query<Record<string, unknown>, []>(`SELECT ${columns.join(", ")} FROM ${table}`)
          .iterate()) {
          rows.push(columns.map((c) => row[c]));
          if (rows.length === perStatement) await flush();
        }
        await flush();
        const [{ copied }] = await tx.unsafe(`SELECT CAST(count(*) AS INTEGER) AS copied FROM ${table}`);
        if (copied !== total)
          throw new Error(`${table}: ${total} rows in SQLite but ${copied} in PostgreSQL; nothing was copied`);
        result.push({ table, source: total, copied });
      }
      // PostgreSQL's search index is made from the submissions, by the backlog job (search/service.ts), every one of them.
      await tx.unsafe(
        "UPDATE search_backlog SET below = (SELECT coalesce(max(seq), 0) + 1 FROM submissions), indexed_to = (SELECT coalesce(max(seq), 0) FROM submissions)",
      );
      for (const [table, column] of IDENTITIES) {
        await tx.unsafe(
          `SELECT setval(pg_get_serial_sequence('${table}', '${column}'), coalesce(max(${column}), 0) + 1, false) FROM ${table}`,
        );
      }
      return result;
    });
  } finally {
    source.close();
    await pg.close();
  }
}
