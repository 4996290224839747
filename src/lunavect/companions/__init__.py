"""The editors' companion extensions (plain JavaScript, not Python): they ship as package data so that
`lunavect editors install` can build one into its editor from any installation (a wheel included)."""
