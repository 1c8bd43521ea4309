import Database from "libsql";
import { writeFileSync, rmSync } from "node:fs";
const a = new Database("/tmp/pt/mnt/f.db", { timeout: 200 });
a.exec("PRAGMA journal_mode=WAL"); a.exec("CREATE TABLE IF NOT EXISTS t (x)");
a.prepare("INSERT INTO t VALUES (?)").run(["a"]);
try { writeFileSync("/tmp/pt/mnt/filler", Buffer.alloc(1024*1024)); } catch (e) { console.log("fill", e.code); }
let n=0;
try { for (;;) { a.prepare("INSERT INTO t VALUES (?)").run(["x".repeat(1000)]); n++; } } catch (e) { console.log(n, e.name, e.code, e.rawCode, e.message); }
console.log(a.prepare("SELECT count(*) c FROM t").get([]));
rmSync("/tmp/pt/mnt/filler");
a.prepare("INSERT INTO t VALUES (?)").run(["y"]);
console.log(a.prepare("SELECT count(*) c FROM t").get([]));
