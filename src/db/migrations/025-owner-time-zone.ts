import type { Step } from "../portable";

/** The IANA time zone an owner reads times in: emails write their times in it. */
export const steps: Step[] = ["ALTER TABLE owners ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC'"];
