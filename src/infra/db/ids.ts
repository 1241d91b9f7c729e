const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `s` can be compared with a uuid column (Postgres rejects anything else). */
export const isUuid = (s: string) => UUID.test(s);
