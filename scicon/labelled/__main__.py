from scicon.labelled.download import main

main()
