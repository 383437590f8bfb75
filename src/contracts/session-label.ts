/** @module The longest session label: a constant of its own, so that the web console can use it without the schema library. */
export const SESSION_LABEL_MAX = 120
