import type { ReservedSQL, SQL } from "bun";
import { AsyncLocalStorage } from "node:async_hooks";
import { CHANGE_KINDS, writtenKinds, type ChangeKind, type Publisher } from "../change-feed";
import type { Sql, SqlParams, SqlValue } from "../sql";

/** A statement as PostgreSQL takes it: `$n` placeholders, and the names of named parameters in their order. */
export interface Translated {
  text: string;
  names: string[] | null;
}

/**
 * Translates a statement written for both engines (sql.ts) into PostgreSQL's dialect: `?N` becomes
 * `$N`, each bare `?` the next `$n`, each `$name` a number of its own (the same name, the same
 * number); `json_each(x)`, a JSON array read as rows of `value`, becomes
 * `json_array_elements_text(CAST(x AS json))`, whose column has that name too. Quoted literals and
 * identifiers, and `--` comments, are copied as they are.
 */
export function translateForPostgres(text: string): Translated {
  let out = "";
  // As in SQLite, a bare `?` takes the number after the largest one used so far.
  let largest = 0;
  const named = new Map<string, number>();
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (c === "'" || c === '"' || (c === "-" && text[i + 1] === "-")) {
      const end = c === "-" ? endOfLine(text, i) : closingQuote(text, i);
      out += text.slice(i, end);
      i = end;
    } else if (c === "?") {
      const digits = /^\d+/.exec(text.slice(i + 1))?.[0];
      const n = digits ? Number(digits) : largest + 1;
      largest = Math.max(largest, n);
      out += `$${n}`;
      i += 1 + (digits?.length ?? 0);
    } else if (c === "$" && /[A-Za-z_]/.test(text[i + 1] ?? "")) {
      const name = /^[A-Za-z_]\w*/.exec(text.slice(i + 1))![0];
      if (!named.has(name)) named.set(name, named.size + 1);
      out += `$${named.get(name)}`;
      i += 1 + name.length;
    } else {
      out += c;
      i += 1;
    }
  }
  return {
    // The parameter is cast to text first: cast straight to json, Bun would send the string as a JSON string.
    text: out.replace(/\bjson_each\((\$\d+)\)/g, "json_array_elements_text(CAST(CAST($1 AS TEXT) AS json))"),
    names: named.size ? [...named.keys()] : null,
  };
}

/** The index of the line break that ends the comment at `start`. */
function endOfLine(text: string, start: number): number {
  const end = text.indexOf("\n", start);
  return end === -1 ? text.length : end;
}

/** The index just past the quote that closes the one at `start` (a doubled quote is part of the text). */
function closingQuote(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] !== quote) continue;
    if (text[i + 1] === quote) i += 1;
    else return i + 1;
  }
  return text.length;
}

/**
 * PostgreSQL's text cannot hold U+0000 (SQLite's can): such a parameter is refused with an error.
 * No stored text holds it, so for a lookup (`/forms/%00`) U+FFFD finds the same nothing; text
 * written with it keeps every other character.
 */
const hasNul = (v: SqlValue): boolean => typeof v === "string" && v.includes("\0");

/** One transaction's connection, reserved from the pool, what `afterCommit` registered in it, and the kinds of change it wrote. */
interface Tx {
  conn: ReservedSQL;
  savepoints: number;
  committed: (() => void)[];
  wrote: Set<ChangeKind>;
}

/**
 * `Sql` over a pool of PostgreSQL connections (Bun's built-in client). A transaction holds one
 * connection of the pool; every statement its callback's async flow makes goes to that connection.
 * After a transaction that wrote commits, or a `run` outside one changes rows, the change feed's
 * publish of the kinds they wrote (change-feed.ts `writtenKinds`) runs before the caller goes on
 * (other instances' caches learn of the commit before anyone is told of it): a transaction sends it
 * in its `COMMIT`'s round trip, one simple query of two statements that runs the second only once
 * the first is durable. Statements through `get`/`all` outside a transaction (the rate limiter's
 * take) do not count as writes.
 */
export function postgresSql(pool: SQL, publisher: Publisher | null = null): Sql {
  const current = new AsyncLocalStorage<Tx>();
  const translations = new Map<string, Translated>();
  const kindsOf = new Map<string, readonly ChangeKind[]>();
  const kinds = (text: string) => {
    let k = kindsOf.get(text);
    if (!k) kindsOf.set(text, (k = writtenKinds(text)));
    return k;
  };

  const translate = (text: string): Translated => {
    let t = translations.get(text);
    if (!t) translations.set(text, (t = translateForPostgres(text)));
    return t;
  };
  const values = (t: Translated, params: SqlParams | undefined): SqlValue[] => {
    if (params === undefined) return [];
    const list = Array.isArray(params)
      ? (params as SqlValue[])
      : (t.names ?? []).map((name) => (params as Record<string, SqlValue>)[name] ?? null);
    return list.some(hasNul) ? list.map((v) => (hasNul(v) ? (v as string).replaceAll("\0", "\uFFFD") : v)) : list;
  };
  const query = <Row>(text: string, params: SqlParams | undefined) => {
    const t = translate(text);
    const tx = current.getStore();
    if (tx) for (const k of kinds(text)) tx.wrote.add(k);
    return (tx?.conn ?? pool).unsafe<Row[]>(t.text, values(t, params)) as unknown as Promise<
      Row[] & { affectedRows?: number; count: number }
    >;
  };

  return {
    engine: "postgres",
    traits: {
      soleWriter: false,
      networked: true,
      tallyDeltas: true,
      lockForUpdate: " FOR NO KEY UPDATE",
      fileSnapshots: false,
    },
    all: <Row>(text: string, params?: SqlParams) => query<Row>(text, params).then((rows) => [...rows]),
    get: <Row>(text: string, params?: SqlParams) => query<Row>(text, params).then((rows) => rows[0] ?? null),
    async run(text, params) {
      const r = await query(text, params);
      const changed = r.affectedRows ?? r.count;
      if (changed > 0 && !current.getStore()) await publisher?.publish(kinds(text));
      return changed;
    },
    async transaction<T>(fn: () => Promise<T>): Promise<T> {
      const outer = current.getStore();
      if (outer) {
        // A savepoint: its failure undoes its writes and drops what it registered, and the transaction goes on.
        const name = `formsvc_${++outer.savepoints}`;
        const registered = outer.committed.length;
        await outer.conn.unsafe(`SAVEPOINT ${name}`);
        try {
          const result = await fn();
          await outer.conn.unsafe(`RELEASE SAVEPOINT ${name}`);
          return result;
        } catch (e) {
          outer.committed.length = registered;
          // If even this fails, the transaction stays aborted, and its COMMIT says so below.
          await outer.conn.unsafe(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => {});
          throw e;
        }
      }
      const tx: Tx = { conn: await pool.reserve(), savepoints: 0, committed: [], wrote: new Set() };
      try {
        await tx.conn.unsafe("BEGIN");
        let result: T;
        try {
          result = await current.run(tx, fn);
        } catch (e) {
          await tx.conn.unsafe("ROLLBACK").catch(() => {});
          throw e;
        }
        // Two statements answer with a result each; the publish's failure alone (its sequence
        // gone) would read as the commit's, and the migrations create it before anything writes.
        const wrote = publisher ? CHANGE_KINDS.filter((k) => tx.wrote.has(k)) : [];
        const commit = wrote.length > 0 ? `COMMIT; ${publisher!.publishing(wrote)}` : "COMMIT";
        const answer = (await tx.conn.unsafe(commit).simple()) as unknown;
        const [done, published] = (wrote.length > 0 ? answer : [answer]) as [
          { command: string },
          Record<string, unknown>[]?,
        ];
        // A statement failed and its error was caught: PostgreSQL answers the COMMIT by rolling back.
        if (done.command !== "COMMIT") throw new Error("the transaction was rolled back: one of its statements failed");
        if (published?.[0]) publisher!.published(wrote, published[0]);
        for (const fn of tx.committed) fn();
        return result;
      } finally {
        await tx.conn.release();
      }
    },
    afterCommit(fn) {
      const tx = current.getStore();
      if (tx) tx.committed.push(fn);
      else fn();
    },
    close: () => pool.close(),
  };
}
