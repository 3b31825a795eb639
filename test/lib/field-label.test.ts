import { describe, expect, test } from "bun:test";
import { fieldLabel, readableName } from "../../src/lib/field-label";

describe("a field as people read it", () => {
  test.each([
    ["inquiry_type", "Inquiry type"],
    ["firstName", "First name"],
    ["homepageURL", "Homepage URL"],
    ["e-mail", "E mail"],
    ["_replyto", "Reply to"],
    ["_subject", "Subject"],
    ["message", "Message"],
    ["__proto__", "Proto"],
    ["___", "___"],
  ])("the name %p reads %p", (name, shown) => {
    expect(readableName(name)).toBe(shown);
  });

  test("a label in the form's fields wins over the name; an empty one does not", () => {
    const fields = [
      { name: "inquiry_type", label: "What about?" },
      { name: "email", label: "" },
    ];
    expect(fieldLabel("inquiry_type", fields)).toBe("What about?");
    expect(fieldLabel("email", fields)).toBe("Email");
    expect(fieldLabel("other_thing", fields)).toBe("Other thing");
    expect(fieldLabel("other_thing", null)).toBe("Other thing");
  });
});
