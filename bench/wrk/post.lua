-- POST the body in $BODY with the Authorization header in $AUTH and the Accept header in $ACCEPT (when set).
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.headers["Content-Type"] = "application/json"
local auth = os.getenv("AUTH")
if auth ~= nil and auth ~= "" then wrk.headers["Authorization"] = auth end
local accept = os.getenv("ACCEPT")
if accept ~= nil and accept ~= "" then wrk.headers["Accept"] = accept end
