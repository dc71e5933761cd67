// Fixtures are made with the modes the tests mean (a folder from mkdirSync is 0755, not 0775):
// a user-private-group umask (002) would make them group-writable, and crawl rightly refuses a
// config file or folder that others can change. The CLIs the tests spawn inherit it too.
process.umask(0o022);
