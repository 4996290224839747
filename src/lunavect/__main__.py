"""`python -m lunavect` is the same program as the `lunavect` command."""

from lunavect.cli import main

if __name__ == "__main__":
    main()
