import type { Role } from "../../lib/rights";

/** A team as the API shows it to one of its members: with that member's role. */
export interface Team {
  id: string;
  name: string;
  /** The personal team of this owner id (made with the owner, never deleted), or null. */
  personal: boolean;
  role: Role;
  createdAt: string;
}

export interface TeamMember {
  ownerId: string;
  email: string;
  role: Role;
  joinedAt: string;
}
