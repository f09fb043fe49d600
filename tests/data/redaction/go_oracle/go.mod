module gooracle

go 1.19
