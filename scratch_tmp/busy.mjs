import Database from "libsql";
const a = new Database("/tmp/pt/b.db", { timeout: 200 });
a.exec("PRAGMA journal_mode=WAL"); a.exec("CREATE TABLE IF NOT EXISTS t (x)");
const b = new Database("/tmp/pt/b.db", { timeout: 200 });
b.exec("BEGIN IMMEDIATE");
try { a.prepare("INSERT INTO t VALUES (1)").run([]); } catch (e) { console.log(Object.keys(e), e.name, e.code, e.rawCode, e.message); }
console.log(a.prepare("SELECT count(*) c FROM t").get([]));
