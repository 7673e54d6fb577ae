/** DOM anchors and endpoints of grok.com (providers/grok.md §2, §3). Only this file changes when the site's markup does. */
export const GROK_SELECTORS = {
  composer: '.tiptap.ProseMirror[contenteditable="true"], textarea',
  send: 'button[type="submit"]',
  /** Picker labels are unverified on the real site; the mode is confirmed from the request body instead. */
  modePicker: 'button[aria-label="Model select"], button[aria-haspopup="menu"][data-testid="mode-picker"]',
  modeMenuItem: '[role="menuitem"], [role="menuitemradio"], [role="option"]',
  loginWall: 'a[href*="accounts.x.ai/sign-in"], a[href*="accounts.x.ai/sign-up"], [role="dialog"][aria-modal="true"].login-modal',
} as const;

/** The streaming endpoint for a new conversation (follow-ups use /conversations/{id}/responses). */
export const GROK_STREAM_URL = /\/rest\/app-chat\/conversations\/(new|[^/]+\/responses)(\?|$)/;

/** API mode → the site's `modeId` and the picker label. */
export const GROK_MODE_IDS = {
  MODEL_MODE_AUTO: { modeId: "auto", label: "Auto" },
  MODEL_MODE_FAST: { modeId: "fast", label: "Fast" },
  MODEL_MODE_EXPERT: { modeId: "expert", label: "Expert" },
} as const;
