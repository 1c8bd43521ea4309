-- POST the body in $BODY with the Authorization header in $AUTH (when set).
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.headers["Content-Type"] = "application/json"
local auth = os.getenv("AUTH")
if auth ~= nil and auth ~= "" then wrk.headers["Authorization"] = auth end
