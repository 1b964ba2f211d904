import Auth

print("auth: not wired yet")
