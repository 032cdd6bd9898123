// The vault as users see it: store + repository + keys.

