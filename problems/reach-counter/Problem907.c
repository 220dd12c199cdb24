// A 2017-style counter: `c += (c + 20) > c ? 2 : 0` counts up in steps of
// two until it would overflow, so the program has about 10^9 states and no
// exhaustive search finishes. Hand-worked answers:
//   start x=1, y=1, c=0.  A (x==1): c += 2.  B (x==1): x=2, y=2.
//   C (x==2): x=3.  D (x==1): y=3.  Anything else is an invalid input.
//   error_0: x==2 && c==6  -> reachable, shortest witness A A A B.
//   error_1: x==3 && y==3  -> y becomes 3 only while x==1, and leaving x==1
//                             (B) sets y=2; x==3 needs x==2 first, so
//                             x==3 always has y==2: unreachable.
//   error_2: x==3 && c==4  -> reachable, shortest witness A A B C.
// rigor proves error_1 with the interval abstraction (the counter is kept
// as an interval, not enumerated).
#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

    extern void __VERIFIER_error(int);

	int inputs[] = {1,2,3,4};

	void errorCheck();
	void calculate_output(int);

	int cf = 1;
	int x = 1;
	int y = 1;
	int c = 0;

	void errorCheck() {
	    if((x == 2 && c == 6)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((x == 3 && y == 3)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((x == 3 && c == 4)){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && (input == 1)) && x == 1) {
    	cf = 0;
    	c += (c + 20) > c ? 2 : 0;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && (input == 2)) && x == 1) {
    	cf = 0;
    	x = 2;
    	y = 2;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 3)) && x == 2) {
    	cf = 0;
    	x = 3;
    	printf("%d\n", 23); fflush(stdout);
    }
    if((cf==1 && (input == 4)) && x == 1) {
    	cf = 0;
    	y = 3;
    	printf("%d\n", 24); fflush(stdout);
    }
    errorCheck();

    if( cf==1 )
    	fprintf(stderr, "Invalid input: %d\n", input);
}

int main()
{
    while(1)
    {
        int input;
        scanf("%d", &input);
        if((input != 1) && (input != 2) && (input != 3) && (input != 4))
          return -2;
        calculate_output(input);
    }
}
