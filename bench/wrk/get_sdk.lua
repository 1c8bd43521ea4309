-- GET with the project's SDK auth.
wrk.headers["Authorization"] = "Bearer " .. os.getenv("SECRET")
wrk.headers["x-svc-project"] = os.getenv("PROJECT")
