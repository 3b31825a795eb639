import type { Database } from "bun:sqlite";

export interface Owner {
  id: string;
  email: string;
  createdAt: string;
}

interface OwnerRow {
  id: string;
  email: string;
  created_at: string;
}

const toOwner = (r: OwnerRow): Owner => ({ id: r.id, email: r.email, createdAt: r.created_at });

export function createOwnersRepo(db: Database) {
  return {
    findOwnerByEmail(email: string): Owner | null {
      const row = db.query<OwnerRow, [string]>("SELECT * FROM owners WHERE email = ?").get(email);
      return row ? toOwner(row) : null;
    },
    findOwnerById(id: string): Owner | null {
      const row = db.query<OwnerRow, [string]>("SELECT * FROM owners WHERE id = ?").get(id);
      return row ? toOwner(row) : null;
    },
    insertOwner(owner: Owner): void {
      db.query("INSERT INTO owners (id, email, created_at) VALUES (?, ?, ?)").run(owner.id, owner.email, owner.createdAt);
    },
  };
}

export type OwnersRepo = ReturnType<typeof createOwnersRepo>;
