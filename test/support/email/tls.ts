// A self-signed certificate for the SMTP listener's STARTTLS in tests: P-256, for agents.test, localhost and
// 127.0.0.1, valid until 2125. A test that checks it trusts it as its own authority (ca), nothing else.
export const TEST_TLS_KEY =
  '-----BEGIN PRIVATE KEY-----\n' +
  'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgy8zwa8vTHcKXJyly\n' +
  'YhN/klWxPYHSnXbKmdvHM7tvXgShRANCAAQCX/rVWELDmDo9TAt/bMJ+hPTg+ohF\n' +
  'GuiEpS8dGWDkzPrzr9vrdOi9pcTtC+qs9qadwF+hT8t43JgDJ2S5x3fL\n' +
  '-----END PRIVATE KEY-----\n';

export const TEST_TLS_CERT =
  '-----BEGIN CERTIFICATE-----\n' +
  'MIIBrTCCAVKgAwIBAgIUQTrj1emxrb2zIGvhbBiAd9f/81wwCgYIKoZIzj0EAwIw\n' +
  'FjEUMBIGA1UEAwwLYWdlbnRzLnRlc3QwIBcNMjYxMjA2MDUzNTMyWhgPMjEyNjEx\n' +
  'MTIwNTM1MzJaMBYxFDASBgNVBAMMC2FnZW50cy50ZXN0MFkwEwYHKoZIzj0CAQYI\n' +
  'KoZIzj0DAQcDQgAEAl/61VhCw5g6PUwLf2zCfoT04PqIRRrohKUvHRlg5Mz686/b\n' +
  '63TovaXE7QvqrPamncBfoU/LeNyYAydkucd3y6N8MHowHQYDVR0OBBYEFPYATz+w\n' +
  'dpiwulWAplE8jdlJWDGTMB8GA1UdIwQYMBaAFPYATz+wdpiwulWAplE8jdlJWDGT\n' +
  'MA8GA1UdEwEB/wQFMAMBAf8wJwYDVR0RBCAwHoILYWdlbnRzLnRlc3SCCWxvY2Fs\n' +
  'aG9zdIcEfwAAATAKBggqhkjOPQQDAgNJADBGAiEAtHRViB0LvevUQvZ+N0odN6Tg\n' +
  'futhjEpkPP7ELf0xujsCIQCTl1nrMXx416skbXVUJjUgoxHcLLUZJGYaA4L+8VyO\n' +
  'DQ==\n' +
  '-----END CERTIFICATE-----\n';
