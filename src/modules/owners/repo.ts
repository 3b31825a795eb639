import type { Sql } from "../../db/sql";

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

export function createOwnersRepo(sql: Sql) {
  const one = async (column: "email" | "id", value: string) => {
    const row = await sql.get<OwnerRow>(`SELECT * FROM owners WHERE ${column} = ?`, [value]);
    return row ? toOwner(row) : null;
  };
  return {
    findOwnerByEmail: (email: string): Promise<Owner | null> => one("email", email),
    findOwnerById: (id: string): Promise<Owner | null> => one("id", id),
    async insertOwner(owner: Owner): Promise<void> {
      await sql.run("INSERT INTO owners (id, email, created_at) VALUES (?, ?, ?)", [
        owner.id,
        owner.email,
        owner.createdAt,
      ]);
    },
  };
}

export type OwnersRepo = ReturnType<typeof createOwnersRepo>;
