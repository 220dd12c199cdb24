// Arithmetic with C's truncating / and %. Hand-worked answers:
//   start x=7, y=-5.  A: x = (x*3-2) % 11, y = y/2.  From the start A gives
//   x = 19 % 11 = 8 and y = -5/2 = -2 (truncation; floor would give -3).
//   B (x > 0): x = x % 4 - 3, y = (y-1) % 7.   C: x = -x, y = y % 3 * 2.
//   error_0: x==8 && y==-2  -> reachable, witness A.
//   error_1: x < -20        -> |x % 11| <= 10, x%4-3 >= -6, -x of those:
//                              x never below -10: unreachable.
//   error_2: x==9 && y==-4  -> reachable, shortest witness C A C A C A A C C A C
//                              (11 inputs; found by an independent Python
//                              BFS). With floor division and modulo instead
//                              of C's truncation it would be unreachable.
//   error_3: y > 12         -> y/2, (y-1)%7 and y%3*2 stay within -12..6
//                              from -5: unreachable.
#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

    extern void __VERIFIER_error(int);

	int inputs[] = {1,2,3};

	void errorCheck();
	void calculate_output(int);

	int cf = 1;
	int x = 7;
	int y = -5;

	void errorCheck() {
	    if((x == 8 && y == -2)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((x < -20)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((x == 9 && y == -4)){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	    if((y > 12)){
	    cf = 0;
	    __VERIFIER_error(3);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && (input == 1))) {
    	cf = 0;
    	x = (x * 3 - 2) % 11;
    	y = y / 2;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && (input == 2)) && x > 0) {
    	cf = 0;
    	x = x % 4 - 3;
    	y = (y - 1) % 7;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 3))) {
    	cf = 0;
    	x = -x;
    	y = y % 3 * 2;
    	printf("%d\n", 23); fflush(stdout);
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
        if((input != 1) && (input != 2) && (input != 3))
          return -2;
        calculate_output(input);
    }
}
