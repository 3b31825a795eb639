// Noto Sans JP's subsets (weight 400, WOFF: fontkit subsets WOFF, and fails on WOFF2), one file per
// unicode range of @fontsource/noto-sans-jp/unicode.json (`[N]`), imported `with { type: "file" }` so the
// compiled binary embeds them (about 5 MB). Written out by hand from that list, not by a build step;
// test/lib/pdf.test.ts fails when the package's list and this one part.
import jp0 from "@fontsource/noto-sans-jp/files/noto-sans-jp-0-400-normal.woff" with { type: "file" };
import jp1 from "@fontsource/noto-sans-jp/files/noto-sans-jp-1-400-normal.woff" with { type: "file" };
import jp2 from "@fontsource/noto-sans-jp/files/noto-sans-jp-2-400-normal.woff" with { type: "file" };
import jp3 from "@fontsource/noto-sans-jp/files/noto-sans-jp-3-400-normal.woff" with { type: "file" };
import jp4 from "@fontsource/noto-sans-jp/files/noto-sans-jp-4-400-normal.woff" with { type: "file" };
import jp5 from "@fontsource/noto-sans-jp/files/noto-sans-jp-5-400-normal.woff" with { type: "file" };
import jp6 from "@fontsource/noto-sans-jp/files/noto-sans-jp-6-400-normal.woff" with { type: "file" };
import jp7 from "@fontsource/noto-sans-jp/files/noto-sans-jp-7-400-normal.woff" with { type: "file" };
import jp8 from "@fontsource/noto-sans-jp/files/noto-sans-jp-8-400-normal.woff" with { type: "file" };
import jp9 from "@fontsource/noto-sans-jp/files/noto-sans-jp-9-400-normal.woff" with { type: "file" };
import jp10 from "@fontsource/noto-sans-jp/files/noto-sans-jp-10-400-normal.woff" with { type: "file" };
import jp11 from "@fontsource/noto-sans-jp/files/noto-sans-jp-11-400-normal.woff" with { type: "file" };
import jp12 from "@fontsource/noto-sans-jp/files/noto-sans-jp-12-400-normal.woff" with { type: "file" };
import jp13 from "@fontsource/noto-sans-jp/files/noto-sans-jp-13-400-normal.woff" with { type: "file" };
import jp14 from "@fontsource/noto-sans-jp/files/noto-sans-jp-14-400-normal.woff" with { type: "file" };
import jp15 from "@fontsource/noto-sans-jp/files/noto-sans-jp-15-400-normal.woff" with { type: "file" };
import jp16 from "@fontsource/noto-sans-jp/files/noto-sans-jp-16-400-normal.woff" with { type: "file" };
import jp17 from "@fontsource/noto-sans-jp/files/noto-sans-jp-17-400-normal.woff" with { type: "file" };
import jp18 from "@fontsource/noto-sans-jp/files/noto-sans-jp-18-400-normal.woff" with { type: "file" };
import jp19 from "@fontsource/noto-sans-jp/files/noto-sans-jp-19-400-normal.woff" with { type: "file" };
import jp20 from "@fontsource/noto-sans-jp/files/noto-sans-jp-20-400-normal.woff" with { type: "file" };
import jp21 from "@fontsource/noto-sans-jp/files/noto-sans-jp-21-400-normal.woff" with { type: "file" };
import jp22 from "@fontsource/noto-sans-jp/files/noto-sans-jp-22-400-normal.woff" with { type: "file" };
import jp23 from "@fontsource/noto-sans-jp/files/noto-sans-jp-23-400-normal.woff" with { type: "file" };
import jp24 from "@fontsource/noto-sans-jp/files/noto-sans-jp-24-400-normal.woff" with { type: "file" };
import jp25 from "@fontsource/noto-sans-jp/files/noto-sans-jp-25-400-normal.woff" with { type: "file" };
import jp26 from "@fontsource/noto-sans-jp/files/noto-sans-jp-26-400-normal.woff" with { type: "file" };
import jp27 from "@fontsource/noto-sans-jp/files/noto-sans-jp-27-400-normal.woff" with { type: "file" };
import jp28 from "@fontsource/noto-sans-jp/files/noto-sans-jp-28-400-normal.woff" with { type: "file" };
import jp29 from "@fontsource/noto-sans-jp/files/noto-sans-jp-29-400-normal.woff" with { type: "file" };
import jp30 from "@fontsource/noto-sans-jp/files/noto-sans-jp-30-400-normal.woff" with { type: "file" };
import jp31 from "@fontsource/noto-sans-jp/files/noto-sans-jp-31-400-normal.woff" with { type: "file" };
import jp32 from "@fontsource/noto-sans-jp/files/noto-sans-jp-32-400-normal.woff" with { type: "file" };
import jp33 from "@fontsource/noto-sans-jp/files/noto-sans-jp-33-400-normal.woff" with { type: "file" };
import jp34 from "@fontsource/noto-sans-jp/files/noto-sans-jp-34-400-normal.woff" with { type: "file" };
import jp35 from "@fontsource/noto-sans-jp/files/noto-sans-jp-35-400-normal.woff" with { type: "file" };
import jp36 from "@fontsource/noto-sans-jp/files/noto-sans-jp-36-400-normal.woff" with { type: "file" };
import jp37 from "@fontsource/noto-sans-jp/files/noto-sans-jp-37-400-normal.woff" with { type: "file" };
import jp38 from "@fontsource/noto-sans-jp/files/noto-sans-jp-38-400-normal.woff" with { type: "file" };
import jp39 from "@fontsource/noto-sans-jp/files/noto-sans-jp-39-400-normal.woff" with { type: "file" };
import jp40 from "@fontsource/noto-sans-jp/files/noto-sans-jp-40-400-normal.woff" with { type: "file" };
import jp41 from "@fontsource/noto-sans-jp/files/noto-sans-jp-41-400-normal.woff" with { type: "file" };
import jp42 from "@fontsource/noto-sans-jp/files/noto-sans-jp-42-400-normal.woff" with { type: "file" };
import jp43 from "@fontsource/noto-sans-jp/files/noto-sans-jp-43-400-normal.woff" with { type: "file" };
import jp44 from "@fontsource/noto-sans-jp/files/noto-sans-jp-44-400-normal.woff" with { type: "file" };
import jp45 from "@fontsource/noto-sans-jp/files/noto-sans-jp-45-400-normal.woff" with { type: "file" };
import jp46 from "@fontsource/noto-sans-jp/files/noto-sans-jp-46-400-normal.woff" with { type: "file" };
import jp47 from "@fontsource/noto-sans-jp/files/noto-sans-jp-47-400-normal.woff" with { type: "file" };
import jp48 from "@fontsource/noto-sans-jp/files/noto-sans-jp-48-400-normal.woff" with { type: "file" };
import jp49 from "@fontsource/noto-sans-jp/files/noto-sans-jp-49-400-normal.woff" with { type: "file" };
import jp50 from "@fontsource/noto-sans-jp/files/noto-sans-jp-50-400-normal.woff" with { type: "file" };
import jp51 from "@fontsource/noto-sans-jp/files/noto-sans-jp-51-400-normal.woff" with { type: "file" };
import jp52 from "@fontsource/noto-sans-jp/files/noto-sans-jp-52-400-normal.woff" with { type: "file" };
import jp53 from "@fontsource/noto-sans-jp/files/noto-sans-jp-53-400-normal.woff" with { type: "file" };
import jp54 from "@fontsource/noto-sans-jp/files/noto-sans-jp-54-400-normal.woff" with { type: "file" };
import jp55 from "@fontsource/noto-sans-jp/files/noto-sans-jp-55-400-normal.woff" with { type: "file" };
import jp56 from "@fontsource/noto-sans-jp/files/noto-sans-jp-56-400-normal.woff" with { type: "file" };
import jp57 from "@fontsource/noto-sans-jp/files/noto-sans-jp-57-400-normal.woff" with { type: "file" };
import jp58 from "@fontsource/noto-sans-jp/files/noto-sans-jp-58-400-normal.woff" with { type: "file" };
import jp59 from "@fontsource/noto-sans-jp/files/noto-sans-jp-59-400-normal.woff" with { type: "file" };
import jp60 from "@fontsource/noto-sans-jp/files/noto-sans-jp-60-400-normal.woff" with { type: "file" };
import jp61 from "@fontsource/noto-sans-jp/files/noto-sans-jp-61-400-normal.woff" with { type: "file" };
import jp62 from "@fontsource/noto-sans-jp/files/noto-sans-jp-62-400-normal.woff" with { type: "file" };
import jp63 from "@fontsource/noto-sans-jp/files/noto-sans-jp-63-400-normal.woff" with { type: "file" };
import jp64 from "@fontsource/noto-sans-jp/files/noto-sans-jp-64-400-normal.woff" with { type: "file" };
import jp65 from "@fontsource/noto-sans-jp/files/noto-sans-jp-65-400-normal.woff" with { type: "file" };
import jp66 from "@fontsource/noto-sans-jp/files/noto-sans-jp-66-400-normal.woff" with { type: "file" };
import jp67 from "@fontsource/noto-sans-jp/files/noto-sans-jp-67-400-normal.woff" with { type: "file" };
import jp68 from "@fontsource/noto-sans-jp/files/noto-sans-jp-68-400-normal.woff" with { type: "file" };
import jp69 from "@fontsource/noto-sans-jp/files/noto-sans-jp-69-400-normal.woff" with { type: "file" };
import jp70 from "@fontsource/noto-sans-jp/files/noto-sans-jp-70-400-normal.woff" with { type: "file" };
import jp71 from "@fontsource/noto-sans-jp/files/noto-sans-jp-71-400-normal.woff" with { type: "file" };
import jp72 from "@fontsource/noto-sans-jp/files/noto-sans-jp-72-400-normal.woff" with { type: "file" };
import jp73 from "@fontsource/noto-sans-jp/files/noto-sans-jp-73-400-normal.woff" with { type: "file" };
import jp74 from "@fontsource/noto-sans-jp/files/noto-sans-jp-74-400-normal.woff" with { type: "file" };
import jp75 from "@fontsource/noto-sans-jp/files/noto-sans-jp-75-400-normal.woff" with { type: "file" };
import jp76 from "@fontsource/noto-sans-jp/files/noto-sans-jp-76-400-normal.woff" with { type: "file" };
import jp77 from "@fontsource/noto-sans-jp/files/noto-sans-jp-77-400-normal.woff" with { type: "file" };
import jp78 from "@fontsource/noto-sans-jp/files/noto-sans-jp-78-400-normal.woff" with { type: "file" };
import jp79 from "@fontsource/noto-sans-jp/files/noto-sans-jp-79-400-normal.woff" with { type: "file" };
import jp80 from "@fontsource/noto-sans-jp/files/noto-sans-jp-80-400-normal.woff" with { type: "file" };
import jp81 from "@fontsource/noto-sans-jp/files/noto-sans-jp-81-400-normal.woff" with { type: "file" };
import jp82 from "@fontsource/noto-sans-jp/files/noto-sans-jp-82-400-normal.woff" with { type: "file" };
import jp83 from "@fontsource/noto-sans-jp/files/noto-sans-jp-83-400-normal.woff" with { type: "file" };
import jp84 from "@fontsource/noto-sans-jp/files/noto-sans-jp-84-400-normal.woff" with { type: "file" };
import jp85 from "@fontsource/noto-sans-jp/files/noto-sans-jp-85-400-normal.woff" with { type: "file" };
import jp86 from "@fontsource/noto-sans-jp/files/noto-sans-jp-86-400-normal.woff" with { type: "file" };
import jp87 from "@fontsource/noto-sans-jp/files/noto-sans-jp-87-400-normal.woff" with { type: "file" };
import jp88 from "@fontsource/noto-sans-jp/files/noto-sans-jp-88-400-normal.woff" with { type: "file" };
import jp89 from "@fontsource/noto-sans-jp/files/noto-sans-jp-89-400-normal.woff" with { type: "file" };
import jp90 from "@fontsource/noto-sans-jp/files/noto-sans-jp-90-400-normal.woff" with { type: "file" };
import jp91 from "@fontsource/noto-sans-jp/files/noto-sans-jp-91-400-normal.woff" with { type: "file" };
import jp92 from "@fontsource/noto-sans-jp/files/noto-sans-jp-92-400-normal.woff" with { type: "file" };
import jp93 from "@fontsource/noto-sans-jp/files/noto-sans-jp-93-400-normal.woff" with { type: "file" };
import jp94 from "@fontsource/noto-sans-jp/files/noto-sans-jp-94-400-normal.woff" with { type: "file" };
import jp95 from "@fontsource/noto-sans-jp/files/noto-sans-jp-95-400-normal.woff" with { type: "file" };
import jp96 from "@fontsource/noto-sans-jp/files/noto-sans-jp-96-400-normal.woff" with { type: "file" };
import jp97 from "@fontsource/noto-sans-jp/files/noto-sans-jp-97-400-normal.woff" with { type: "file" };
import jp98 from "@fontsource/noto-sans-jp/files/noto-sans-jp-98-400-normal.woff" with { type: "file" };
import jp99 from "@fontsource/noto-sans-jp/files/noto-sans-jp-99-400-normal.woff" with { type: "file" };
import jp100 from "@fontsource/noto-sans-jp/files/noto-sans-jp-100-400-normal.woff" with { type: "file" };
import jp101 from "@fontsource/noto-sans-jp/files/noto-sans-jp-101-400-normal.woff" with { type: "file" };
import jp102 from "@fontsource/noto-sans-jp/files/noto-sans-jp-102-400-normal.woff" with { type: "file" };
import jp103 from "@fontsource/noto-sans-jp/files/noto-sans-jp-103-400-normal.woff" with { type: "file" };
import jp104 from "@fontsource/noto-sans-jp/files/noto-sans-jp-104-400-normal.woff" with { type: "file" };
import jp105 from "@fontsource/noto-sans-jp/files/noto-sans-jp-105-400-normal.woff" with { type: "file" };
import jp106 from "@fontsource/noto-sans-jp/files/noto-sans-jp-106-400-normal.woff" with { type: "file" };
import jp107 from "@fontsource/noto-sans-jp/files/noto-sans-jp-107-400-normal.woff" with { type: "file" };
import jp108 from "@fontsource/noto-sans-jp/files/noto-sans-jp-108-400-normal.woff" with { type: "file" };
import jp109 from "@fontsource/noto-sans-jp/files/noto-sans-jp-109-400-normal.woff" with { type: "file" };
import jp110 from "@fontsource/noto-sans-jp/files/noto-sans-jp-110-400-normal.woff" with { type: "file" };
import jp111 from "@fontsource/noto-sans-jp/files/noto-sans-jp-111-400-normal.woff" with { type: "file" };
import jp112 from "@fontsource/noto-sans-jp/files/noto-sans-jp-112-400-normal.woff" with { type: "file" };
import jp113 from "@fontsource/noto-sans-jp/files/noto-sans-jp-113-400-normal.woff" with { type: "file" };
import jp114 from "@fontsource/noto-sans-jp/files/noto-sans-jp-114-400-normal.woff" with { type: "file" };
import jp115 from "@fontsource/noto-sans-jp/files/noto-sans-jp-115-400-normal.woff" with { type: "file" };
import jp116 from "@fontsource/noto-sans-jp/files/noto-sans-jp-116-400-normal.woff" with { type: "file" };
import jp117 from "@fontsource/noto-sans-jp/files/noto-sans-jp-117-400-normal.woff" with { type: "file" };
import jp118 from "@fontsource/noto-sans-jp/files/noto-sans-jp-118-400-normal.woff" with { type: "file" };
import jp119 from "@fontsource/noto-sans-jp/files/noto-sans-jp-119-400-normal.woff" with { type: "file" };

/** Each subset's file, by its number in unicode.json. */

export const JP_FILES: readonly string[] = [
  jp0,
  jp1,
  jp2,
  jp3,
  jp4,
  jp5,
  jp6,
  jp7,
  jp8,
  jp9,
  jp10,
  jp11,
  jp12,
  jp13,
  jp14,
  jp15,
  jp16,
  jp17,
  jp18,
  jp19,
  jp20,
  jp21,
  jp22,
  jp23,
  jp24,
  jp25,
  jp26,
  jp27,
  jp28,
  jp29,
  jp30,
  jp31,
  jp32,
  jp33,
  jp34,
  jp35,
  jp36,
  jp37,
  jp38,
  jp39,
  jp40,
  jp41,
  jp42,
  jp43,
  jp44,
  jp45,
  jp46,
  jp47,
  jp48,
  jp49,
  jp50,
  jp51,
  jp52,
  jp53,
  jp54,
  jp55,
  jp56,
  jp57,
  jp58,
  jp59,
  jp60,
  jp61,
  jp62,
  jp63,
  jp64,
  jp65,
  jp66,
  jp67,
  jp68,
  jp69,
  jp70,
  jp71,
  jp72,
  jp73,
  jp74,
  jp75,
  jp76,
  jp77,
  jp78,
  jp79,
  jp80,
  jp81,
  jp82,
  jp83,
  jp84,
  jp85,
  jp86,
  jp87,
  jp88,
  jp89,
  jp90,
  jp91,
  jp92,
  jp93,
  jp94,
  jp95,
  jp96,
  jp97,
  jp98,
  jp99,
  jp100,
  jp101,
  jp102,
  jp103,
  jp104,
  jp105,
  jp106,
  jp107,
  jp108,
  jp109,
  jp110,
  jp111,
  jp112,
  jp113,
  jp114,
  jp115,
  jp116,
  jp117,
  jp118,
  jp119,
];
