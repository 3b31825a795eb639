import type { Sql } from "../../db/sql";
import { slot } from "../../lib/slots";
import type { NewSubmission } from "../submissions/model";

/** The duplicate rule's hash of a submission's fields and visitor (filter.ts), set by the check for `fileDuplicates`. */
export const visitorDigestOf = slot<string>("visitorDigest");

/** What an owner's filter has learned from: message counts, the version every lesson moves on, and since when it files. */
export interface FilterRow {
  spam: number;
  ham: number;
  version: number;
  filing_since: string | null;
}

export type Label = "spam" | "ham";

// A batch of token rows per statement: PostgreSQL takes at most 65,535 parameters, and each is a round trip.
const TOKENS_PER_STATEMENT = 250;
const upsertTokens = (n: number) =>
  `INSERT INTO spam_tokens (team_id, token, spam, ham) VALUES ${Array(n).fill("(?, ?, ?, ?)").join(", ")}
   ON CONFLICT (team_id, token) DO UPDATE SET spam = spam_tokens.spam + excluded.spam, ham = spam_tokens.ham + excluded.ham`;
// A lesson's tokens as base64 of their 32-bit little-endian integers: a third of their JSON's size.
const packTokens = (tokens: number[]) => Buffer.from(Int32Array.from(tokens).buffer).toString("base64");
const unpackTokens = (text: string): number[] => {
  const bytes = Buffer.from(text, "base64");
  return Array.from(new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2));
};

/** Both labels' counts have reached this: the filter files spam from then on. */
export const FILING_AFTER = 20;

/** The learning filter's tables: per owner its counts and hashed tokens, each lesson, and the duplicate rule's recent hashes. */
export function createFilterRepo(sql: Sql) {
  // The status and verdict each submission had from the checks, before the duplicate rule's writer.
  type Lesson = { team_id: string; label: Label; tokens: string };
  const asChecked = new WeakMap<NewSubmission, { status: NewSubmission["status"]; spam: string | null }>();

  /** Takes a lesson's counts back out of its team's tokens; a token that no lesson counts any more goes. */
  const takeBack = async (teamId: string, lesson: { label: Label; tokens: number[] }) => {
    const tokens = JSON.stringify(lesson.tokens);
    const listed = "token IN (SELECT CAST(value AS INTEGER) FROM json_each(?))";
    await sql.run(
      `UPDATE spam_tokens SET ${lesson.label} = ${lesson.label} - 1 WHERE team_id = ? AND ${lesson.label} > 0 AND ${listed}`,
      [teamId, tokens],
    );
    await sql.run(`DELETE FROM spam_tokens WHERE team_id = ? AND spam = 0 AND ham = 0 AND ${listed}`, [teamId, tokens]);
  };

  /** Takes lessons back out of their teams' filters: their tokens, and their counts (whose version moves on). */
  const takeOut = async (lessons: Lesson[]) => {
    const taken = new Map<string, { spam: number; ham: number }>();
    for (const l of lessons) {
      await takeBack(l.team_id, { label: l.label, tokens: unpackTokens(l.tokens) });
      const counts = taken.get(l.team_id) ?? { spam: 0, ham: 0 };
      counts[l.label] += 1;
      taken.set(l.team_id, counts);
    }
    for (const [teamId, { spam, ham }] of taken)
      await sql.run(
        `UPDATE spam_filters SET spam = spam - ?1, ham = ham - ?2, version = version + 1,
           filing_since = CASE WHEN spam - ?1 < ?3 OR ham - ?2 < ?3 THEN NULL ELSE filing_since END
         WHERE team_id = ?4`,
        [spam, ham, FILING_AFTER, teamId],
      );
  };

  return {
    findFilter: (teamId: string): Promise<FilterRow | null> =>
      sql.get<FilterRow>("SELECT spam, ham, version, filing_since FROM spam_filters WHERE team_id = ?", [teamId]),

    /** Every hashed token of an owner's model with its counts. */
    listTokens: (teamId: string) =>
      sql.all<{ token: number; spam: number; ham: number }>(
        "SELECT token, spam, ham FROM spam_tokens WHERE team_id = ? AND (spam > 0 OR ham > 0)",
        [teamId],
      ),

    /** The lesson a submission taught, with its hashed tokens; null when it taught none. */
    async findLesson(submissionId: string): Promise<{ label: Label; tokens: number[] } | null> {
      const row = await sql.get<{ label: Label; tokens: string }>(
        "SELECT label, tokens FROM spam_lessons WHERE submission_id = ?",
        [submissionId],
      );
      return row && { label: row.label, tokens: unpackTokens(row.tokens) };
    },

    /**
     * Records a lesson (inside the caller's transaction): takes back the submission's earlier
     * opposite lesson if any, adds this one's tokens, and moves the owner's version on. Returns the
     * owner's row as it now is.
     */
    async learn(
      teamId: string,
      submissionId: string,
      label: Label,
      tokens: number[],
      undo: { label: Label; tokens: number[] } | null,
      now: string,
    ): Promise<FilterRow> {
      await sql.run("INSERT INTO spam_filters (team_id) VALUES (?) ON CONFLICT (team_id) DO NOTHING", [teamId]);
      if (undo) await takeBack(teamId, undo);
      const [s, h] = label === "spam" ? [1, 0] : [0, 1];
      for (let i = 0; i < tokens.length; i += TOKENS_PER_STATEMENT) {
        const chunk = tokens.slice(i, i + TOKENS_PER_STATEMENT);
        await sql.run(
          upsertTokens(chunk.length),
          chunk.flatMap((t) => [teamId, t, s, h]),
        );
      }
      await sql.run(
        `INSERT INTO spam_lessons (submission_id, team_id, label, tokens, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (submission_id) DO UPDATE SET label = excluded.label, tokens = excluded.tokens, created_at = excluded.created_at`,
        [submissionId, teamId, label, packTokens(tokens), now],
      );
      const back = undo ? (undo.label === "spam" ? [-1, 0] : [0, -1]) : [0, 0];
      const row = await sql.get<FilterRow>(
        `UPDATE spam_filters SET spam = spam + ?1, ham = ham + ?2, version = version + 1,
           filing_since = CASE WHEN filing_since IS NULL AND spam + ?1 >= ?4 AND ham + ?2 >= ?4 THEN ?5
                               WHEN spam + ?1 < ?4 OR ham + ?2 < ?4 THEN NULL ELSE filing_since END
         WHERE team_id = ?3 RETURNING spam, ham, version, filing_since`,
        [s + back[0]!, h + back[1]!, teamId, FILING_AFTER, now],
      );
      return row!;
    },

    /**
     * Forgets everything an owner's filter learned (inside the caller's transaction, with its audit
     * line); its version moves on, so every instance's cache reloads.
     */
    async reset(teamId: string): Promise<void> {
      await sql.run("DELETE FROM spam_tokens WHERE team_id = ?", [teamId]);
      await sql.run("DELETE FROM spam_lessons WHERE team_id = ?", [teamId]);
      await sql.run(
        "UPDATE spam_filters SET spam = 0, ham = 0, version = version + 1, filing_since = NULL WHERE team_id = ?",
        [teamId],
      );
    },

    /**
     * The pipeline's purge: a deleted submission's lesson row goes, its counts staying in the model
     * (the owner's mark still holds), unless it was erased with its person (`erased`): then what
     * its lesson added is subtracted, as an opposite mark takes a lesson back, and the owner's
     * version moves on. Runs after the submissions' rows are deleted, so a mark of one waits for it.
     */
    async forgetLessons(batch: NewSubmission[]): Promise<void> {
      if (!batch.length) return;
      const erased = batch.filter((s) => s.erased).map((s) => s.id);
      if (erased.length)
        await takeOut(
          await sql.all<Lesson>(
            "SELECT team_id, label, tokens FROM spam_lessons WHERE submission_id IN (SELECT value FROM json_each(?)) ORDER BY submission_id",
            [JSON.stringify(erased)],
          ),
        );
      await sql.run("DELETE FROM spam_lessons WHERE submission_id IN (SELECT value FROM json_each(?))", [
        JSON.stringify(batch.map((s) => s.id)),
      ]);
    },

    /**
     * A form leaving its team: what its submissions taught that team's filter is taken back out,
     * and the lessons go (the team it joins learns from its own marks). Answers the teams whose
     * filter changed.
     */
    async forgetFormLessons(formId: string): Promise<string[]> {
      const lessons = await sql.all<Lesson>(
        `SELECT team_id, label, tokens FROM spam_lessons
         WHERE submission_id IN (SELECT id FROM submissions WHERE form_id = ?) ORDER BY submission_id`,
        [formId],
      );
      await takeOut(lessons);
      await sql.run("DELETE FROM spam_lessons WHERE submission_id IN (SELECT id FROM submissions WHERE form_id = ?)", [
        formId,
      ]);
      return [...new Set(lessons.map((l) => l.team_id))];
    },

    /**
     * The pipeline's writer for the duplicate rule, first in a new submission's transaction: a
     * submission whose digest of fields and visitor the form saw within its window (committed
     * before, or earlier in this batch) is filed as spam with the reason `duplicate`, and every
     * digest is recorded with its time. Decided here rather than in the check, which cannot see the
     * batch it will join nor a batch committing beside it: the row's lock orders two identical posts
     * on every engine. Decided afresh on each attempt, so a batch retried item by item keeps no
     * verdict from a twin that never committed.
     */
    async fileDuplicates(batch: NewSubmission[]): Promise<void> {
      const watched: { s: NewSubmission; digest: string }[] = [];
      for (const s of batch) {
        const digest = visitorDigestOf.get(s);
        if (digest && s.form.duplicateWindowSeconds !== null) watched.push({ s, digest });
      }
      // One order of row locks for every transaction (PostgreSQL): by form, then digest.
      watched.sort((a, b) => (a.s.form.id + a.digest < b.s.form.id + b.digest ? -1 : 1));
      const oldest = new Map<string, string>();
      for (const { s, digest } of watched) {
        const checked = asChecked.get(s) ?? { status: s.status, spam: s.spam ?? null };
        asChecked.set(s, checked);
        s.status = checked.status;
        s.spam = checked.spam;
        const since = new Date(Date.parse(s.createdAt) - s.form.duplicateWindowSeconds! * 1000).toISOString();
        const key = [s.form.id, digest, s.createdAt];
        const fresh = await sql.get(
          "INSERT INTO spam_recent (form_id, digest, seen_at) VALUES (?, ?, ?) ON CONFLICT (form_id, digest) DO NOTHING RETURNING 1 AS one",
          key,
        );
        // Takes the row's lock: a transaction that recorded the same digest meanwhile is waited for,
        // and its time read once it has committed.
        const renewed =
          fresh ??
          (await sql.get(
            "UPDATE spam_recent SET seen_at = ? WHERE form_id = ? AND digest = ? AND seen_at <= ? RETURNING 1 AS one",
            [s.createdAt, s.form.id, digest, since],
          ));
        if (!renewed) {
          await sql.run("UPDATE spam_recent SET seen_at = ? WHERE form_id = ? AND digest = ?", [
            s.createdAt,
            s.form.id,
            digest,
          ]);
          s.status = "spam";
          const verdict = (s.spam ? JSON.parse(s.spam) : { score: 0.5, reasons: [] }) as { reasons: string[] };
          verdict.reasons.push("duplicate");
          s.spam = JSON.stringify(verdict);
        }
        if (!oldest.has(s.form.id) || since < oldest.get(s.form.id)!) oldest.set(s.form.id, since);
      }
      for (const [formId, before] of oldest)
        await sql.run("DELETE FROM spam_recent WHERE form_id = ? AND seen_at < ?", [formId, before]);
    },
  };
}

export type FilterRepo = ReturnType<typeof createFilterRepo>;
