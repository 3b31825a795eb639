import type { FormType } from "../../client/index";

/** Every form type, with the words the dashboard shows for it. */
export const FORM_TYPES: { value: FormType; label: string }[] = [
  { value: "contact", label: "Contact" },
  { value: "feedback", label: "Feedback" },
  { value: "waitlist", label: "Waitlist" },
  { value: "survey", label: "Survey" },
  { value: "application", label: "Application" },
  { value: "order", label: "Order" },
  { value: "rsvp", label: "RSVP" },
  { value: "analytics_opt_in", label: "Analytics opt-in" },
  { value: "custom", label: "Custom" },
];

export const typeLabel = (t: string) => FORM_TYPES.find((f) => f.value === t)?.label ?? t;
