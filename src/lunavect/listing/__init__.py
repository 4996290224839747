"""What every front end reads: the stored sessions with the person's arrangement applied, the bars' attention,
the change feed that says when to read again, and the other machines' hosts."""
