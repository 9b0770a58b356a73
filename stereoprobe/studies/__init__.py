"""The studies stereoprobe runs, one package each."""
