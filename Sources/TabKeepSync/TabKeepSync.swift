// TabKeepSync: exchanges document deltas between stores (messages, sessions, folder transport).
