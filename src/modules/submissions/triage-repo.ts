import type { Sql } from "../../db/sql";
import type { SubmissionState, SubmissionStatus } from "./model";

/** A submission as a triage change reads it, locked until its transaction ends. */
export interface TriageRow {
  id: string;
  formId: string;
  status: SubmissionStatus;
  state: SubmissionState;
  assignee: string | null;
  assigneeEmail: string | null;
  createdAt: string;
  tags: string[];
}

/** A note as stored, with its author's email (null for the command line's, or a person since deleted). */
export interface NoteRow {
  id: string;
  submissionId: string;
  authorId: string | null;
  author: string | null;
  text: string;
  createdAt: string;
}

const ids = (list: string[]) => JSON.stringify(list);
const NOTE = `SELECT n.id, n.submission_id, n.author_id, o.email AS author, n.text, n.created_at
  FROM submission_notes n LEFT JOIN owners o ON o.id = n.author_id`;
const toNote = (r: {
  id: string;
  submission_id: string;
  author_id: string | null;
  author: string | null;
  text: string;
  created_at: string;
}): NoteRow => ({
  id: r.id,
  submissionId: r.submission_id,
  authorId: r.author_id,
  author: r.author,
  text: r.text,
  createdAt: r.created_at,
});

/** What the inbox keeps on submissions: their state, assignee, tags (submission_tags) and notes (submission_notes). */
export function createTriageRepo(sql: Sql) {
  return {
    /**
     * These submissions (any form's: the caller keeps its own), with their tags, each row locked
     * until the transaction ends (PostgreSQL), so two changes of one submission's state count its
     * form's `unread` once each, in turn.
     */
    async lockSubmissions(list: string[]): Promise<TriageRow[]> {
      const rows = await sql.all<{
        id: string;
        form_id: string;
        status: SubmissionStatus;
        state: SubmissionState;
        assignee: string | null;
        assignee_email: string | null;
        created_at: string;
      }>(
        `SELECT id, form_id, status, state, assignee, (SELECT o.email FROM owners o WHERE o.id = submissions.assignee) AS assignee_email, created_at FROM submissions WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id${sql.traits.lockForUpdate}`,
        [ids(list)],
      );
      const tags = new Map<string, string[]>();
      for (const t of await sql.all<{ submission_id: string; tag: string }>(
        "SELECT submission_id, tag FROM submission_tags WHERE submission_id IN (SELECT value FROM json_each(?)) ORDER BY submission_id, tag",
        [ids(list)],
      ))
        tags.get(t.submission_id)?.push(t.tag) ?? tags.set(t.submission_id, [t.tag]);
      return rows.map((r) => ({
        id: r.id,
        formId: r.form_id,
        status: r.status,
        state: r.state,
        assignee: r.assignee,
        assigneeEmail: r.assignee_email,
        createdAt: r.created_at,
        tags: tags.get(r.id) ?? [],
      }));
    },

    /** How many notes each of these submissions has. */
    async noteCounts(list: string[]): Promise<Map<string, number>> {
      const rows = await sql.all<{ id: string; note_count: number }>(
        "SELECT id, note_count FROM submissions WHERE id IN (SELECT value FROM json_each(?))",
        [ids(list)],
      );
      return new Map(rows.map((r) => [r.id, r.note_count]));
    },

    async setState(list: string[], state: SubmissionState): Promise<void> {
      await sql.run("UPDATE submissions SET state = ? WHERE id IN (SELECT value FROM json_each(?))", [
        state,
        ids(list),
      ]);
    },

    async setAssignee(list: string[], ownerId: string | null): Promise<void> {
      await sql.run("UPDATE submissions SET assignee = ? WHERE id IN (SELECT value FROM json_each(?))", [
        ownerId,
        ids(list),
      ]);
    },

    /** Adds and removes a submission's tags (its form and time go with each, for a search by tag). */
    async changeTags(row: TriageRow, added: string[], removed: string[]): Promise<void> {
      if (removed.length)
        await sql.run(
          "DELETE FROM submission_tags WHERE submission_id = ? AND tag IN (SELECT value FROM json_each(?))",
          [row.id, ids(removed)],
        );
      for (const tag of added)
        await sql.run(
          "INSERT INTO submission_tags (submission_id, tag, form_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
          [row.id, tag, row.formId, row.createdAt],
        );
    },

    /** A note, and its submission's note_count one up, in the caller's transaction. */
    async insertNote(note: { id: string; submissionId: string; authorId: string | null; text: string; at: string }) {
      await sql.run(
        "INSERT INTO submission_notes (id, submission_id, author_id, text, created_at) VALUES (?, ?, ?, ?, ?)",
        [note.id, note.submissionId, note.authorId, note.text, note.at],
      );
      await sql.run("UPDATE submissions SET note_count = note_count + 1 WHERE id = ?", [note.submissionId]);
    },

    /** Removes a note, and its submission's note_count one down; false when it was gone already. */
    async deleteNote(note: NoteRow): Promise<boolean> {
      if ((await sql.run("DELETE FROM submission_notes WHERE id = ?", [note.id])) === 0) return false;
      await sql.run("UPDATE submissions SET note_count = note_count - 1 WHERE id = ?", [note.submissionId]);
      return true;
    },

    async findNote(id: string): Promise<NoteRow | null> {
      const r = await sql.get<Parameters<typeof toNote>[0]>(`${NOTE} WHERE n.id = ?`, [id]);
      return r ? toNote(r) : null;
    },

    /** A submission's notes, oldest first. */
    async listNotes(submissionId: string): Promise<NoteRow[]> {
      return (
        await sql.all<Parameters<typeof toNote>[0]>(`${NOTE} WHERE n.submission_id = ? ORDER BY n.created_at, n.id`, [
          submissionId,
        ])
      ).map(toNote);
    },

    /** Unassigns a form's submissions from whoever is not a member of `teamId` (the form moved there). */
    async unassignOutside(formId: string, teamId: string): Promise<void> {
      await sql.run(
        `UPDATE submissions SET assignee = NULL WHERE form_id = ? AND assignee IS NOT NULL
         AND assignee NOT IN (SELECT owner_id FROM team_members WHERE team_id = ?)`,
        [formId, teamId],
      );
    },

    /** Unassigns a person from the submissions of a team's forms (they left it). */
    async unassignMember(teamId: string, ownerId: string): Promise<void> {
      await sql.run(
        "UPDATE submissions SET assignee = NULL WHERE assignee = ? AND form_id IN (SELECT id FROM forms WHERE team_id = ?)",
        [ownerId, teamId],
      );
    },
  };
}

export type TriageRepo = ReturnType<typeof createTriageRepo>;
